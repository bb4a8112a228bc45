// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"fmt"
	"strconv"

	"github.com/toolgate/toolgate/textcall"
	"github.com/toolgate/toolgate/tool"
)

// textModelRequest rewrites r for a backend whose model prints its calls
// as text in family fam: the family's tools section, honouring the tool
// choice, joins the system prompt; the backend gets no tools; earlier
// calls become assistant text in the family's own form, and their results
// a user turn in the family's own form. r is not changed.
//
// Results go in a user turn, not a tool turn: the backend is one whose
// chat template may know nothing of tools (that is why the gateway
// parses the text), and such templates drop a tool message or refuse
// the conversation, while every template renders a user turn. The
// families' templates that do know tools render results inside a user
// turn themselves (Hermes and Qwen's <tool_response>, Llama 3's ipython
// text aside), so the model sees what it was trained on.
func textModelRequest(r *Request, fam textcall.Family) (*Request, []tool.Warning, error) {
	out := *r
	var warns []tool.Warning
	if len(r.Tools) > 0 {
		choice := tool.Choice{}
		if r.Choice != nil {
			choice = *r.Choice
		}
		prompt, err := fam.Prompt(r.Tools, choice)
		if err != nil {
			return nil, nil, &RequestError{Status: 400, Pointer: "/tool_choice", Reason: "names a tool that is not among the tools", Err: fmt.Errorf("%w: %w", ErrBadRequest, err)}
		}
		switch {
		case prompt == "":
		case out.System == "":
			out.System = prompt
		default:
			out.System = out.System + "\n\n" + prompt
		}
	}
	out.Tools, out.Choice = nil, nil
	names := map[string]string{} // call id -> tool name, for the results
	out.Messages = make([]Message, 0, len(r.Messages))
	var results []tool.Result
	flush := func() {
		if len(results) > 0 {
			out.Messages = append(out.Messages, Message{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: fam.FormatResults(results)}}})
			results = nil
		}
	}
	for i, m := range r.Messages {
		switch m.Role {
		case RoleTool:
			for _, p := range m.Parts {
				if p.Kind != PartResult {
					continue
				}
				res := tool.TextResult(p.CallID, resultTextOf(&p, "/messages/"+strconv.Itoa(i), &warns))
				res.Name, res.IsError = names[p.CallID], p.IsError
				results = append(results, res)
			}
			continue
		case RoleAssistant:
			flush()
			var calls []tool.Call
			parts := make([]Part, 0, len(m.Parts))
			for _, p := range m.Parts {
				if p.Kind == PartCall {
					calls = append(calls, tool.Call{ID: p.CallID, Name: p.Name, Arguments: argsOrEmpty(p.Arguments)})
					names[p.CallID] = p.Name
					continue
				}
				parts = append(parts, p)
			}
			if len(calls) > 0 {
				text := fam.FormatCalls(calls)
				for _, p := range parts {
					if p.Kind == PartText && p.Text != "" {
						text = "\n" + text
						break
					}
				}
				parts = append(parts, Part{Kind: PartText, Text: text})
			}
			out.Messages = append(out.Messages, Message{Role: RoleAssistant, Parts: parts})
			continue
		}
		if m.Role == RoleUser && len(results) > 0 {
			// Results and the user's next words make one user turn:
			// templates such as Mistral's refuse two user turns in a row.
			out.Messages = append(out.Messages, joinUser(fam.FormatResults(results), m))
			results = nil
			continue
		}
		flush()
		out.Messages = append(out.Messages, m)
	}
	flush()
	return &out, warns, nil
}

// resultTextOf is a result's text; images are left out with a warning.
func resultTextOf(p *Part, ptr string, warns *[]tool.Warning) string {
	var s string
	for _, c := range p.Content {
		if c.Kind == PartText {
			s += c.Text
		} else {
			*warns = append(*warns, tool.Warning{Pointer: ptr, Code: "not-carried", Message: "an image in a tool result was left out: a text model takes text results"})
		}
	}
	return s
}

// encodeFor writes r for provider p: rewritten for a text model when p
// has a tool parser family, with p's default temperature when the client
// set none, with the backend's own extras, and as pass 1 when p caps
// reasoning with two passes.
func (h *Handler) encodeFor(r *Request, p *Provider) (*Outbound, error) {
	if r.plain != nil {
		if p.plain {
			if out := plainOutbound(r, p); out != nil {
				return out, nil
			}
		}
		full, err := decodeChecked(APIChat, r.plain.body)
		if err != nil {
			return nil, err
		}
		r = full
	}
	var warns []tool.Warning
	if p.Temperature != nil && r.Temperature == nil {
		c := *r
		c.Temperature = p.Temperature
		r = &c
	}
	if p.ToolParser != "" {
		fam, err := textcall.Lookup(p.ToolParser)
		if err != nil {
			return nil, err
		}
		if r, warns, err = textModelRequest(r, fam); err != nil {
			return nil, err
		}
	}
	opts := backendOptions(p, r)
	opts.Text = p.ToolParser != ""
	opts.RefuseUnknown = h.cfg.RefuseUnknownMembers
	opts.lower = h.lower
	send := r
	two := usesTwoPasses(p)
	if two {
		send = pass1Request(r, p)
	}
	out, err := EncodeRequest(send, opts)
	if err != nil {
		return nil, err
	}
	out.Warnings = append(warns, out.Warnings...)
	if two {
		out.base = r
	}
	return out, nil
}

// joinUser puts text before the parts of user message m: as one string
// when m is text only, which every server reads.
func joinUser(text string, m Message) Message {
	all := text
	for _, p := range m.Parts {
		if p.Kind != PartText {
			return Message{Role: RoleUser, Parts: append([]Part{{Kind: PartText, Text: text + "\n\n"}}, m.Parts...)}
		}
		all += "\n\n" + p.Text
	}
	return Message{Role: RoleUser, Parts: []Part{{Kind: PartText, Text: all}}}
}
