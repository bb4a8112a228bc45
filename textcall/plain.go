// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import "strings"

// plainStop is the set of bytes after which [Parser.Plain] is no longer
// sure: the first bytes of every marker of the answer (the family's call
// and drop markers, interleaved think tags, stray closing tags), of the
// calls that fire only at the start of the answer, and '<', which the
// reasoning split at the start of the output looks at. Nil when Plain is
// never sure of the parser (see plainStopOf).
func plainStopOf(sp *spec, cfg *Config, t *tables) *markerSet {
	switch {
	case cfg.ThinkOpen, sp.machine != nil, sp.ownReasoning, t.state != sContent:
		// Output that starts in the reasoning; a family read by a
		// machine of its own, or that marks reasoning its own way; calls
		// that may fire at the start of the answer, whatever their bytes.
		return nil
	case t.tclose != nil && !cfg.DisableImpliedReasoning:
		// Text before a closing tag may turn out to be reasoning: it is
		// held until the tag or the end decides.
		return nil
	}
	list := append([]string{"<"}, t.markers.list...)
	for c, ok := range t.startsCall {
		if ok {
			list = append(list, string(rune(c)))
		}
	}
	return newMarkerSet(list...)
}

// Plain reports whether a [Scanner] of p reads text, fed in any pieces
// and closed, as answer and nothing else: content events that concatenate
// to text, no reasoning, no call, no warning. It looks at each byte once
// (with one byte to look for, as for a think-tag split, at the speed of
// [strings.IndexByte]), and says no whenever it is not sure: a byte that
// may start a marker of the family or a think tag, output that starts
// inside the reasoning ([Config.ThinkOpen]), text that may turn out to be
// reasoning when a closing tag follows (implied reasoning), a family with
// calls that fire at the start of the answer or read by a machine of its
// own (Harmony).
//
// Texts that are each Plain concatenate to a Plain text, so that a
// caller with the output in pieces may ask of each, and read them without
// a Scanner when all are.
func (p *Parser) Plain(text string) bool {
	switch m := p.plain; {
	case m == nil:
		return false
	case m.one >= 0:
		return strings.IndexByte(text, byte(m.one)) < 0
	default:
		return m.nextString(text, 0) < 0
	}
}
