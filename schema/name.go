// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"
)

var (
	// ErrInvalidName reports a tool name a target does not accept.
	ErrInvalidName = errors.New("schema: invalid tool name")
	// ErrNameCollision reports two tool names that map to the same
	// target name.
	ErrNameCollision = errors.New("schema: tool names collide")
)

// nameRule is one target's tool-name rule.
type nameRule struct {
	max        int
	dot, colon bool // '.' and ':' allowed besides ASCII letters, digits, '_' and '-'
	firstAlpha bool // must start with a letter or underscore
}

// rule returns the name rule of t:
//
//   - OpenAI and Anthropic (strict or not): ^[a-zA-Z0-9_-]{1,64}$.
//   - Gemini (both fields): [a-zA-Z0-9_.:-], starting with a letter or an
//     underscore, at most 64 characters. Google's documentation says 64 in
//     one place and 128 in another; 64 is accepted everywhere.
//   - MCP: 1 to 128 of [A-Za-z0-9_.-] (SEP-986 as the official SDKs check
//     it).
func rule(t Target) nameRule {
	switch t {
	case Gemini, GeminiJSON:
		return nameRule{max: 64, dot: true, colon: true, firstAlpha: true}
	case MCP:
		return nameRule{max: 128, dot: true}
	}
	return nameRule{max: 64}
}

func (r nameRule) allowed(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' ||
		c == '.' && r.dot || c == ':' && r.colon
}

// accepts reports what [CheckName] does for a valid target, without
// building the error: [NameMap.Map] asks it of every name.
func (r nameRule) accepts(name string) bool {
	if name == "" || len(name) > r.max || r.firstAlpha && !alphaStart(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !r.allowed(name[i]) {
			return false
		}
	}
	return true
}

func alphaStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// CheckName reports whether t accepts name as a tool name; the error
// matches ErrInvalidName and says which rule failed.
func CheckName(t Target, name string) error {
	if !t.valid() {
		return fmt.Errorf("%w: %q", ErrUnknownTarget, string(t))
	}
	r := rule(t)
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name", ErrInvalidName)
	case len(name) > r.max:
		return fmt.Errorf("%w: %q is %d bytes long; %s allows %d", ErrInvalidName, name, len(name), t, r.max)
	case r.firstAlpha && !alphaStart(name[0]):
		return fmt.Errorf("%w: %q must start with a letter or an underscore for %s", ErrInvalidName, name, t)
	}
	for i := 0; i < len(name); i++ {
		if !r.allowed(name[i]) {
			r, _ := utf8.DecodeRuneInString(name[i:])
			return fmt.Errorf("%w: %q has %q at byte %d, outside what %s allows", ErrInvalidName, name, r, i, t)
		}
	}
	return nil
}

// NameMap maps tool names to names a target accepts, and back. A name the
// target accepts maps to itself. Otherwise "." becomes "__", "/" becomes
// "--", any other byte outside the target's set becomes "_x" and two hex
// digits, a name that must start with a letter gets a leading "_", and a
// name still too long is cut and ends with "_" and 8 hex digits of a hash
// of the original. Map refuses to give two names the same mapped name, so
// [NameMap.Unmap] is exact. A NameMap is safe for concurrent use.
type NameMap struct {
	t Target // fixed at creation

	mu sync.Mutex
	// A request's few names are found by scanning pairs, which small
	// backs; past linearNames pairs the maps take over, so that a request
	// with thousands of tools stays linear. Converting a file maps every
	// name once, and two maps per request cost more than the scan.
	pairs []namePair
	small [4]namePair
	to    map[string]string // original -> mapped, once past linearNames
	from  map[string]string // mapped -> original, once past linearNames
}

// namePair is one name and what it maps to.
type namePair struct{ orig, mapped string }

// linearNames is how many pairs a NameMap scans before it builds maps.
const linearNames = 16

// NewNameMap returns an empty map for target t.
func NewNameMap(t Target) *NameMap {
	m := &NameMap{t: t}
	m.pairs = m.small[:0]
	return m
}

// lookup returns what name maps to (forward) or the original of a
// mapped name (!forward), with m.mu held.
func (m *NameMap) lookup(name string, forward bool) (string, bool) {
	if m.to != nil {
		if forward {
			s, ok := m.to[name]
			return s, ok
		}
		s, ok := m.from[name]
		return s, ok
	}
	for _, p := range m.pairs {
		if forward && p.orig == name {
			return p.mapped, true
		}
		if !forward && p.mapped == name {
			return p.orig, true
		}
	}
	return "", false
}

// add records a pair, with m.mu held.
func (m *NameMap) add(orig, mapped string) {
	if m.to == nil && len(m.pairs) < linearNames {
		m.pairs = append(m.pairs, namePair{orig, mapped})
		return
	}
	if m.to == nil {
		m.to = make(map[string]string, 2*linearNames)
		m.from = make(map[string]string, 2*linearNames)
		for _, p := range m.pairs {
			m.to[p.orig], m.from[p.mapped] = p.mapped, p.orig
		}
		m.pairs = nil
	}
	m.to[orig], m.from[mapped] = mapped, orig
}

// Map returns the name t accepts for name, recording the pair. The error
// matches ErrInvalidName (empty name, unknown target) or ErrNameCollision.
func (m *NameMap) Map(name string) (string, error) {
	if !m.t.valid() {
		return "", fmt.Errorf("%w: %q", ErrUnknownTarget, string(m.t))
	}
	if name == "" {
		return "", fmt.Errorf("%w: empty name", ErrInvalidName)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if mapped, ok := m.lookup(name, true); ok {
		return mapped, nil
	}
	mapped := encodeName(m.t, name)
	if prev, ok := m.lookup(mapped, false); ok && prev != name {
		return "", fmt.Errorf("%w: %q and %q both map to %q for %s", ErrNameCollision, prev, name, mapped, m.t)
	}
	m.add(name, mapped)
	return mapped, nil
}

// Unmap returns the original of a name [NameMap.Map] returned; ok is false
// (and mapped is returned) for a name this map never produced.
func (m *NameMap) Unmap(mapped string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if orig, ok := m.lookup(mapped, false); ok {
		return orig, true
	}
	return mapped, false
}

func encodeName(t Target, name string) string {
	r := rule(t)
	if r.accepts(name) {
		return name
	}
	const hexDigits = "0123456789abcdef"
	// Built in a stack buffer, made a string once: every name a target
	// refuses comes here.
	var buf [96]byte
	b := buf[:0]
	if r.firstAlpha && !alphaStart(name[0]) {
		b = append(b, '_')
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case r.allowed(c):
			b = append(b, c)
		case c == '.':
			b = append(b, "__"...)
		case c == '/':
			b = append(b, "--"...)
		default:
			b = append(b, '_', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		}
	}
	s := string(b)
	if len(s) > r.max {
		sum := sha256.Sum256([]byte(name))
		s = s[:r.max-9] + "_" + hex.EncodeToString(sum[:4])
	}
	return s
}
