// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

// byteEvent returns the one-byte event of kind k (0 content, 1
// reasoning) for byte c. Each byte value gets its event once, in
// byteEvs, and later deltas holding it return that event again: the
// shortcuts write no pointer, so they pay no write barrier while the GC
// marks (which it does a third of the time at GOMAXPROCS=1, and which
// cost a tenth of a one-byte stream when each delta wrote its event's
// text). The content shortcuts in Feed do the look-up inline.
func (s *Scanner) byteEvent(k int, c byte) []Event {
	if i := int(s.byteIdx[k][c]); i > 0 {
		return s.byteEvs[k][i-1 : i : i]
	}
	return s.newByteEvent(k, c)
}

// newByteEvent makes the event for byteEvent.
func (s *Scanner) newByteEvent(k int, c byte) []Event {
	if s.byteEvs[k] == nil {
		s.byteEvs[k] = make([]Event, 0, 64)
	}
	kind := EventContent
	if k == 1 {
		kind = EventReasoning
	}
	// Slices returned earlier keep the array they were cut from, so
	// growing byteEvs changes none of them.
	s.byteEvs[k] = append(s.byteEvs[k], Event{Kind: kind, Text: byteText[c : int(c)+1]})
	i := len(s.byteEvs[k])
	s.byteIdx[k][c] = uint16(i)
	return s.byteEvs[k][i-1 : i : i]
}

// byteText holds every byte value once. The fast path's one-byte events
// are cut from it rather than from the delta: both are the same text, but
// this one is static data, which the write barrier that storing the event
// costs while the GC marks passes over without looking the object up (that
// look-up was a tenth of a one-byte stream's time).
const byteText = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x21\x22\x23\x24\x25\x26\x27\x28\x29\x2a\x2b\x2c\x2d\x2e\x2f\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x3a\x3b\x3c\x3d\x3e\x3f\x40\x41\x42\x43\x44\x45\x46\x47\x48\x49\x4a\x4b\x4c\x4d\x4e\x4f\x50\x51\x52\x53\x54\x55\x56\x57\x58\x59\x5a\x5b\x5c\x5d\x5e\x5f\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f\x70\x71\x72\x73\x74\x75\x76\x77\x78\x79\x7a\x7b\x7c\x7d\x7e\x7f\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff"

// pushText appends a text event. The common case reuses a slot of the
// event slice in place and writes only its kind and text: copying a whole
// Event costs a write barrier for each of its pointers while the GC runs,
// which made up a third of a one-byte delta's cost.
func (s *Scanner) pushText(kind EventKind, text string) {
	n := len(s.ev)
	if n == cap(s.ev) {
		s.growEvents(kind, text)
		return
	}
	s.ev = s.ev[:n+1]
	e := &s.ev[n]
	if e.ID != "" || e.Name != "" || e.Warning != nil {
		*e = Event{}
	}
	e.Kind, e.Text, e.Index = kind, text, 0
}

//go:noinline
func (s *Scanner) growEvents(kind EventKind, text string) {
	s.ev = append(s.ev, Event{Kind: kind, Text: text})
}
