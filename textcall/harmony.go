// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// gpt-oss: OpenAI's open-weight models, Harmony messages in text form.
//
//	<|channel|>analysis<|message|>The user wants the weather.<|end|>
//	<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>
//	<|channel|>final<|message|>It is sunny.<|return|>
//
// The analysis channel is reasoning; final (and commentary without a
// recipient) is content; a message to functions.NAME is a call.
type harmony struct{}

func harmonyFamily() Family { return harmony{} }

func (harmony) Name() string { return "gpt-oss" }

const (
	hStartTok   = "<|start|>"
	hChannelTok = "<|channel|>"
	hMessageTok = "<|message|>"
	hEndTok     = "<|end|>"
	hCallTok    = "<|call|>"
	hReturnTok  = "<|return|>"
	hConstrain  = "<|constrain|>"
	hMaxHeader  = 4096
)

func (harmony) spec() *spec {
	return &spec{
		name:         "gpt-oss",
		aliases:      []string{"harmony", "openai", "gpt-oss-20b", "gpt-oss-120b"},
		ownReasoning: true,
		machine:      newHarmonyMachine,
	}
}

type harmonyMachine struct {
	s     *Scanner
	max   int
	out   *markerSet // outside a message: starts
	hdr   *markerSet // in a header: its end
	msg   *markerSet // in a message: its ends, and starts of the next
	buf   []byte
	off   int64
	scan  int
	state int
	kind  int    // message kind
	name  string // recipient tool
	// as streams a call message's arguments (Config.StreamArguments).
	as *argStream
}

const (
	hmOut = iota
	hmHeader
	hmMessage
)

const (
	kindContent = iota
	kindReasoning
	kindCall
)

func newHarmonyMachine(s *Scanner) machine {
	return &harmonyMachine{
		s:   s,
		max: s.p.cfg.MaxCallBytes,
		out: newMarkerSet(hStartTok, hChannelTok, hEndTok, hReturnTok, hCallTok),
		hdr: newMarkerSet(hMessageTok),
		msg: newMarkerSet(hEndTok, hReturnTok, hCallTok, hStartTok, hChannelTok),
	}
}

func (h *harmonyMachine) feed(s string) {
	h.buf = append(h.buf, s...)
	h.run(false)
}

func (h *harmonyMachine) close() { h.run(true) }

func (h *harmonyMachine) consume(n int) {
	h.off += int64(n)
	h.buf = h.buf[n:]
	if len(h.buf) == 0 {
		h.buf = h.buf[:0:0]
	}
	h.scan = 0
}

func (h *harmonyMachine) emit(kind int, n int) {
	if n <= 0 {
		return
	}
	if kind == kindReasoning {
		h.s.emitReasoningBytes(h.buf[:n])
	} else {
		h.s.emitContentBytes(h.buf[:n])
	}
	h.consume(n)
}

func (h *harmonyMachine) run(final bool) {
	for {
		switch h.state {
		case hmOut:
			at, which, hold := h.out.find(h.buf, h.scan, final)
			if at < 0 {
				if final {
					hold = len(h.buf)
				}
				h.emit(kindContent, hold)
				h.scan = 0
				return
			}
			h.emit(kindContent, at)
			tok := h.out.list[which]
			if tok != hStartTok && tok != hChannelTok {
				h.consume(len(tok))
				continue
			}
			h.state = hmHeader
			h.scan = 0
		case hmHeader:
			// The header is searched within hMaxHeader bytes only, so a
			// run of start tokens with no message costs linear time.
			win, cut := h.buf, false
			if len(win) >= hMaxHeader+len(hMessageTok) {
				win, cut = win[:hMaxHeader+len(hMessageTok)], true
			}
			at, _, hold := h.hdr.find(win, h.scan, final || cut)
			if at < 0 && !final && !cut && hold <= hMaxHeader {
				h.scan = hold
				return
			}
			if at < 0 || at > hMaxHeader {
				h.s.warn("", "malformed-message", fmt.Sprintf("a Harmony message header at offset %d has no %s; it is kept as content", h.s.answer0+h.off, hMessageTok))
				h.emit(kindContent, min(len(h.buf), hMaxHeader))
				h.state = hmOut
				continue
			}
			h.header(string(h.buf[:at]))
			h.consume(at + len(hMessageTok))
			h.state = hmMessage
			h.as = nil
			if h.kind == kindCall && h.s.p.cfg.StreamArguments && !h.s.whole {
				// The message is the arguments object; the name
				// came in the header.
				name := h.name
				h.as = &argStream{st: asHead, head: func(body []byte) (string, string, int) {
					return name, "", objectAt(body, 0)
				}}
			}
		case hmMessage:
			at, which, hold := h.msg.find(h.buf, h.scan, final)
			if h.kind != kindCall {
				if at < 0 {
					if final {
						hold = len(h.buf)
					}
					h.emit(h.kind, hold)
					if final {
						h.state = hmOut
					}
					return
				}
				h.emit(h.kind, at)
				h.endMessage(which)
				continue
			}
			if h.max > 0 && (at < 0 && hold > h.max || at > h.max) {
				h.s.settle(h.as, nil, 0, fmt.Errorf("it ran past %d bytes", h.max))
				h.as = nil
				h.s.warn("", "call-too-large", fmt.Sprintf("the call to %q at offset %d ran past %d bytes; it is kept as content", h.name, h.s.answer0+h.off, h.max))
				h.kind = kindContent
				continue
			}
			if at < 0 {
				h.scan = hold
				if h.as != nil {
					h.s.streamArgs(h.as, h.buf, hold)
				}
				if !final {
					return
				}
				at = len(h.buf)
				which = -1
			}
			h.call(h.buf[:at], which < 0)
			h.consume(at)
			if which >= 0 {
				h.endMessage(which)
			} else {
				h.state = hmOut
			}
		}
	}
}

// endMessage consumes a message's end token, or leaves a start token for
// the next message.
func (h *harmonyMachine) endMessage(which int) {
	tok := h.msg.list[which]
	if tok == hStartTok || tok == hChannelTok {
		h.state = hmOut
		return
	}
	h.consume(len(tok))
	h.state = hmOut
}

// header reads "assistant<|channel|>commentary to=functions.x <|constrain|>json".
func (h *harmonyMachine) header(hd string) {
	hd = strings.ReplaceAll(hd, hConstrain, " ")
	channel := ""
	if i := strings.Index(hd, hChannelTok); i >= 0 {
		if f := strings.Fields(hd[i+len(hChannelTok):]); len(f) > 0 {
			channel = f[0]
		}
		hd = strings.Replace(hd, hChannelTok, " ", 1)
	}
	recipient := ""
	for _, f := range strings.Fields(hd) {
		if r, ok := strings.CutPrefix(f, "to="); ok {
			recipient = r
		}
	}
	h.name = ""
	switch {
	case recipient != "" && recipient != "user" && recipient != "all":
		h.kind = kindCall
		h.name = strings.TrimPrefix(recipient, "functions.")
	case channel == "analysis":
		h.kind = kindReasoning
	default:
		h.kind = kindContent
	}
}

func (h *harmonyMachine) call(body []byte, cut bool) {
	at := h.off
	a := h.as
	h.as = nil
	v, err := checked(body)
	if err == nil {
		v, err = argsObject(v)
	}
	if err != nil {
		why := err.Error()
		if cut {
			why = "the output ended inside it (cut at the token limit?)"
		}
		h.s.settle(a, nil, at, errors.New(why))
		h.s.warn("", "malformed-call", fmt.Sprintf("the call to %q at offset %d: %s; its arguments are kept as content", h.name, h.s.answer0+at, why))
		h.s.emitContentBytes(body)
		return
	}
	if cut {
		h.s.warn("", "unclosed-call", fmt.Sprintf("the call to %q at offset %d has no %s; its complete arguments were read", h.name, h.s.answer0+at, hCallTok))
	}
	for _, rc := range h.s.settle(a, []rawCall{{name: h.name, args: v}}, at, nil) {
		h.s.emitCall(rc, at)
	}
}

func (harmony) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Tools\n\n## functions\n\nnamespace functions {\n\n")
	for _, d := range defs {
		if d.Description != "" {
			for _, line := range strings.Split(strings.TrimSpace(d.Description), "\n") {
				b.WriteString("// " + line + "\n")
			}
		}
		b.WriteString("type " + d.Name + " = (")
		schema := schemaOf(d)
		props := []byte(nil)
		if strictjson.Check(schema, nil) == nil {
			props = strictjson.Get(schema, "properties")
		}
		if strictjson.KindOf(props) == strictjson.Object && string(compact(props)) != "{}" {
			required := map[string]bool{}
			if r := strictjson.Get(schema, "required"); strictjson.KindOf(r) == strictjson.Array {
				_ = strictjson.Elements(r, func(_ int, v []byte) error {
					s, _ := strictjson.Unquote(v)
					required[s] = true
					return nil
				})
			}
			b.WriteString("_: {\n")
			_ = strictjson.Members(props, func(k, v []byte) error {
				if ds := strictjson.Get(v, "description"); strictjson.KindOf(ds) == strictjson.String {
					s, _ := strictjson.Unquote(ds)
					b.WriteString("// " + strings.ReplaceAll(strings.TrimSpace(s), "\n", " ") + "\n")
				}
				b.WriteString(string(k))
				if !required[string(k)] {
					b.WriteString("?")
				}
				b.WriteString(": " + tsType(schema, v) + ",\n")
				return nil
			})
			b.WriteString("}")
		}
		b.WriteString(") => any;\n\n")
	}
	b.WriteString("} // namespace functions\n\n")
	b.WriteString("Call a function with a message on the commentary channel addressed to=functions.NAME whose body is the JSON arguments.\n")
	b.WriteString(choiceText(choice))
	b.WriteString("\n")
	return b.String(), nil
}

// tsType renders a property schema as the TypeScript type Harmony prompts
// use, following local $ref and unions.
func tsType(root, s []byte) string {
	s = resolveRef(root, s, 0)
	if e := strictjson.Get(s, "enum"); strictjson.KindOf(e) == strictjson.Array {
		var parts []string
		_ = strictjson.Elements(e, func(_ int, v []byte) error {
			parts = append(parts, string(v))
			return nil
		})
		return strings.Join(parts, " | ")
	}
	if strictjson.KindOf(strictjson.Get(s, "type")) == strictjson.String {
		name, _ := strictjson.Unquote(strictjson.Get(s, "type"))
		if name == "array" {
			if it := strictjson.Get(s, "items"); it != nil {
				return tsType(root, it) + "[]"
			}
			return "any[]"
		}
	}
	var parts []string
	ts := typesOf(root, s, 0)
	for _, t := range [...]struct {
		set typeSet
		ts  string
	}{{tsString, "string"}, {tsInteger | tsNumber, "number"}, {tsBoolean, "boolean"}, {tsObject, "object"}, {tsArray, "any[]"}, {tsNull, "null"}} {
		if ts&t.set != 0 {
			parts = append(parts, t.ts)
		}
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, " | ")
}

func (harmony) FormatCalls(calls []tool.Call) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteString(hStartTok + "assistant")
		}
		b.WriteString(hChannelTok + "commentary to=functions." + c.Name + " " + hConstrain + "json" + hMessageTok + argsText(c) + hCallTok)
	}
	return b.String()
}

func (harmony) FormatResults(results []tool.Result) string {
	var b strings.Builder
	for _, r := range results {
		name := r.Name
		if name == "" {
			name = r.CallID
		}
		b.WriteString(hStartTok + "functions." + name + " to=assistant" + hChannelTok + "commentary" + hMessageTok)
		v := []byte(resultText(r))
		if strictjson.Check(v, nil) != nil {
			v = strictjson.AppendQuote(nil, string(v))
		}
		b.Write(v)
		b.WriteString(hEndTok)
	}
	return b.String()
}
