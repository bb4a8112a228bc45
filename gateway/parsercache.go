// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

// maxCachedParsers bounds the text parsers one provider keeps: one per
// tool set its clients send (an agent sends the same set on every turn).
const maxCachedParsers = 64

// parserKey names a text parser of one provider: what of the request its
// config depends on. sum is a hash of the offered tools; a hit is
// confirmed by comparing them (tools), so a collision costs a build,
// never a wrong parser.
type parserKey struct {
	answer, stream, noCalls bool
	n                       int
	sum                     uint64
}

// slot numbers a key's three flags, for a key with no tools.
func (k parserKey) slot() int {
	n := 0
	for i, b := range [...]bool{k.answer, k.stream, k.noCalls} {
		if b {
			n |= 1 << i
		}
	}
	return n
}

type parserEntry struct {
	key   parserKey
	tools []tool.Definition // what the key hashed, to confirm a hit
	p     *textcall.Parser
}

// parserCache keeps the text parsers of one provider, built once per
// request shape and tool set instead of on every request
// (textcall.New builds its tables, reads every tool's schema): a bounded
// LRU. It is safe for concurrent use; a textcall.Parser is too.
type parserCache struct {
	seed maphash.Seed // fixed at creation

	// bare holds the parsers for no tools, by the key's three flags:
	// most requests offer none, and these need no hash, lock or list.
	bare [8]atomic.Pointer[textcall.Parser]

	mu    sync.Mutex
	order *list.List // of *parserEntry, most recent first
	byKey map[parserKey][]*list.Element
}

func newParserCache() *parserCache {
	return &parserCache{seed: maphash.MakeSeed(), order: list.New(), byKey: map[parserKey][]*list.Element{}}
}

// hashTools hashes what textcall reads of the tools: names, descriptions
// and input schemas, each length-prefixed.
func (c *parserCache) hashTools(ts []tool.Definition) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	var n [8]byte
	put := func(b []byte) {
		l := len(b)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write(b)
	}
	for i := range ts {
		h.WriteString(ts[i].Name)
		h.WriteByte(0)
		put([]byte(ts[i].Description))
		put(ts[i].InputSchema)
	}
	return h.Sum64()
}

func sameTools(a, b []tool.Definition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].InputSchema, b[i].InputSchema) {
			return false
		}
	}
	return true
}

// get returns the parser of key for tools, building it with build on a
// miss (from a copy of tools, so that the parser holds nothing of the
// request). Two requests missing at once both build; both are kept.
func (c *parserCache) get(key parserKey, tools []tool.Definition, build func([]tool.Definition) (*textcall.Parser, error)) (*textcall.Parser, error) {
	key.n = len(tools)
	if len(tools) == 0 {
		slot := &c.bare[key.slot()]
		if p := slot.Load(); p != nil {
			return p, nil
		}
		p, err := build(nil)
		if err != nil {
			return nil, err
		}
		// Two requests missing at once both build; the first stored is
		// kept.
		if !slot.CompareAndSwap(nil, p) {
			p = slot.Load()
		}
		return p, nil
	}
	key.sum = c.hashTools(tools)
	c.mu.Lock()
	for _, el := range c.byKey[key] {
		e := el.Value.(*parserEntry)
		if sameTools(e.tools, tools) {
			c.order.MoveToFront(el)
			c.mu.Unlock()
			return e.p, nil
		}
	}
	c.mu.Unlock()
	own := cloneTools(tools)
	p, err := build(own)
	if err != nil {
		return nil, err
	}
	e := &parserEntry{key: key, tools: own, p: p}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byKey[key] = append(c.byKey[key], c.order.PushFront(e))
	for c.order.Len() > maxCachedParsers {
		old := c.order.Back()
		c.order.Remove(old)
		oe := old.Value.(*parserEntry)
		els := c.byKey[oe.key]
		for i, el := range els {
			if el == old {
				els = append(els[:i], els[i+1:]...)
				break
			}
		}
		if len(els) == 0 {
			delete(c.byKey, oe.key)
		} else {
			c.byKey[oe.key] = els
		}
	}
	return p, nil
}

func cloneTools(ts []tool.Definition) []tool.Definition {
	out := make([]tool.Definition, len(ts))
	for i, t := range ts {
		out[i] = tool.Definition{Name: t.Name, Description: t.Description, InputSchema: bytes.Clone(t.InputSchema)}
	}
	return out
}
