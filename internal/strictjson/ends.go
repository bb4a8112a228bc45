// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import "slices"

// EndsDepth is how deep [CheckEnds] records containers: the root is depth
// 1, so a tool's schema in {"tools":[{"function":{"parameters":{…}}}]} is
// at depth 5. Deeper containers are left out: readers skip a schema
// whole, and recording every property would cost more than it saves.
const EndsDepth = 5

// Ends records where the objects and arrays near the root of a checked
// document end, so that a reader skips them without reading them again:
// a decoder of tool files checks the whole document, then skips each
// schema, which is most of it. [CheckEnds] fills it. The zero value is
// empty; a container it does not hold is skipped by scanning, so a
// lookup is never wrong for the document that was checked, only slower.
// An Ends must not be copied once filled.
type Ends struct {
	spans []span
	next  int      // where the last lookup ended: readers go forward
	small [16]span // backs spans for small documents
}

// span is one container: its first byte and the offset just past it.
type span struct{ start, end int }

// CheckEnds is [Check] that also records in ends, which it empties first,
// where the containers of data down to [EndsDepth] end. After an error
// ends is empty.
func CheckEnds(data []byte, opts *Options, ends *Ends) error {
	if ends.spans == nil {
		ends.spans = ends.small[:0]
	}
	ends.spans, ends.next = ends.spans[:0], 0
	err := check(data, opts, ends)
	if err != nil {
		ends.spans = ends.spans[:0]
	}
	return err
}

// Reset empties e, and lets go of its memory if a large document grew it,
// for an Ends kept for reuse.
func (e *Ends) Reset() {
	if cap(e.spans) > 4*len(e.small) {
		e.spans = nil
	}
	e.spans, e.next = e.spans[:0], 0
}

// SkipValue is [SkipValue] for the document e was filled from (or a copy
// of it): the end of a recorded container is looked up, not scanned for.
func (e *Ends) SkipValue(data []byte, i int) int {
	if i < len(data) && (data[i] == '{' || data[i] == '[') {
		if end := e.lookup(i); end > i && end <= len(data) && data[end-1] == data[i]+2 {
			// '{'+2 is '}' and '['+2 is ']': the end closes this kind.
			return end
		}
	}
	return SkipValue(data, i)
}

// lookup returns the end of the container starting at i, or 0. Readers
// ask in document order, so it first looks a few spans ahead of the last
// answer, then searches.
func (e *Ends) lookup(i int) int {
	s := e.spans
	for k := e.next; k < len(s) && k < e.next+8; k++ {
		if s[k].start == i {
			e.next = k + 1
			return s[k].end
		}
		if s[k].start > i {
			break
		}
	}
	k, found := slices.BinarySearchFunc(s, i, func(sp span, i int) int { return sp.start - i })
	if !found {
		return 0
	}
	e.next = k + 1
	return s[k].end
}
