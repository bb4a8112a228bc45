// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"sync"

	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
)

// Bounds of a lowerCache: entries, and bytes of schemas kept (input and
// lowered together). A schema larger than maxLoweredSchema is lowered
// every time.
const (
	maxLoweredEntries = 4096
	maxLoweredBytes   = 32 << 20
	maxLoweredSchema  = 1 << 20
)

// lowerCache keeps the input schemas of tools lowered for a backend
// target: an agent sends the same tools, tens of kilobytes of schemas, on
// every turn, and lowering them was most of the request side's cost. It
// is keyed by target and schema bytes (a hash, confirmed by comparing the
// bytes), so a tool set that changes by one tool still finds the others.
// Name mapping stays per request: it depends on the other names. A
// bounded LRU, safe for concurrent use.
type lowerCache struct {
	seed maphash.Seed // fixed at creation

	mu    sync.Mutex
	order *list.List // of *lowered, most recent first
	byKey map[lowerKey][]*list.Element
	bytes int
}

type lowerKey struct {
	t   schema.Target
	sum uint64
}

type lowered struct {
	key   lowerKey
	raw   []byte // the schema as the client sent it
	out   []byte // lowered
	warns []tool.Warning
}

func newLowerCache() *lowerCache {
	return &lowerCache{seed: maphash.MakeSeed(), order: list.New(), byKey: map[lowerKey][]*list.Element{}}
}

// lowerDefinition is schema.LowerDefinition for the gateway's targets
// (never MCP, so the output schema is left as it is), with the input
// schema's lowering cached. The returned definition's schema bytes are
// shared with the cache: read them only.
func (c *lowerCache) lowerDefinition(t schema.Target, d *tool.Definition, names *schema.NameMap) (tool.Definition, []tool.Warning, error) {
	if c == nil || t == schema.MCP || len(d.InputSchema) == 0 || len(d.InputSchema) > maxLoweredSchema {
		return schema.LowerDefinition(t, d, names)
	}
	key := lowerKey{t: t, sum: maphash.Bytes(c.seed, d.InputSchema)}
	e := c.get(key, d.InputSchema)
	if e == nil {
		// Lower the schema alone (the name is mapped below, with the
		// request's map), and keep it when it lowered without error.
		// The name given is one every target accepts, so that the
		// warnings are the schema's only.
		ld, ws, err := schema.LowerDefinition(t, &tool.Definition{Name: "x", InputSchema: d.InputSchema}, nil)
		if err != nil {
			return schema.LowerDefinition(t, d, names)
		}
		e = &lowered{key: key, raw: bytes.Clone(d.InputSchema), out: ld.InputSchema, warns: ws}
		c.put(e)
	}
	// The name, mapped as LowerDefinition maps it, with its warning.
	named, warns, err := schema.LowerDefinition(t, &tool.Definition{Name: d.Name}, names)
	if err != nil {
		return tool.Definition{}, nil, err
	}
	out := *d
	out.Name = named.Name
	out.InputSchema = e.out
	return out, append(warns, e.warns...), nil
}

func (c *lowerCache) get(key lowerKey, raw []byte) *lowered {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, el := range c.byKey[key] {
		e := el.Value.(*lowered)
		if bytes.Equal(e.raw, raw) {
			c.order.MoveToFront(el)
			return e
		}
	}
	return nil
}

func (c *lowerCache) put(e *lowered) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, el := range c.byKey[e.key] {
		if bytes.Equal(el.Value.(*lowered).raw, e.raw) {
			return // another request lowered it meanwhile
		}
	}
	c.byKey[e.key] = append(c.byKey[e.key], c.order.PushFront(e))
	c.bytes += len(e.raw) + len(e.out)
	for c.order.Len() > maxLoweredEntries || c.bytes > maxLoweredBytes {
		old := c.order.Back()
		c.order.Remove(old)
		oe := old.Value.(*lowered)
		c.bytes -= len(oe.raw) + len(oe.out)
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
}
