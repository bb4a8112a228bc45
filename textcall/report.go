// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/tool"
)

func (s *Scanner) warn(pointer, code, msg string) {
	w := tool.Warning{Pointer: pointer, Code: code, Message: msg}
	s.res.Warnings = append(s.res.Warnings, w)
	if !s.whole {
		s.ev = append(s.ev, Event{Kind: EventWarning, Warning: &w})
	}
}

// emitCall checks a parsed call (offered name, unique id) and reports it.
// at is the offset of its text in the answer, for warnings.
func (s *Scanner) emitCall(c rawCall, at int64) {
	n := s.calls
	s.calls++
	s.reportCall(c, s.callID(n, c.id), at, nil)
}

// reportCall reports call c with the given id. a, when set, is the
// stream that already announced it and sent a prefix of its arguments.
func (s *Scanner) reportCall(c rawCall, id string, at int64, a *sentCall) {
	// The arguments may alias the scanner's buffer, which is reused: the
	// event's text is a copy, and the call's bytes another.
	// Body parsers return arguments in memory of their own (argsObject,
	// argsBuilder, the Python reader), so the call keeps them; the
	// capacity is cut so an append by the caller cannot write past them.
	args := c.args
	if len(args) == 0 {
		args = []byte("{}")
	}
	call := tool.Call{ID: id, Name: c.name, Arguments: json.RawMessage(args[:len(args):len(args)])}
	if s.p.offered != nil && !s.p.offered[c.name] && !s.p.cfg.AllowUnknownTools {
		for _, w := range c.warns {
			s.warn(fmt.Sprintf("/rejected/%d%s", len(s.res.Rejected), w.Pointer), w.Code, w.Message)
		}
		s.res.Rejected = append(s.res.Rejected, call)
		s.warn("", "unknown-tool", fmt.Sprintf("call to %q at offset %d names a tool that was not offered; it is kept out of the calls", c.name, s.answer0+at))
		return
	}
	idx := len(s.res.Calls)
	for _, w := range c.warns {
		s.warn(fmt.Sprintf("/tool_calls/%d%s", idx, w.Pointer), w.Code, w.Message)
	}
	s.res.Calls = append(s.res.Calls, call)
	if s.whole {
		return
	}
	if a != nil {
		if rest := args[a.sent:]; len(rest) > 0 {
			s.ev = append(s.ev, Event{Kind: EventArguments, Index: a.index, Text: string(rest)})
		}
		return
	}
	// The index in events counts the calls announced, which is the
	// index in Result.Calls unless a streamed call was withdrawn.
	ev := s.streamIndex
	s.streamIndex++
	s.ev = append(s.ev,
		Event{Kind: EventCall, Index: ev, ID: id, Name: c.name},
		Event{Kind: EventArguments, Index: ev, Text: string(args)})
}
