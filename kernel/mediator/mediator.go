// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mediator

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
)

// ErrUnreadable reports a model response from which no tool call can be
// read at all, so that no result can name its call.
var ErrUnreadable = errors.New("mediator: unreadable model response")

// Config configures [New].
type Config struct {
	// Kernel runs the calls. Required.
	Kernel *kernel.Kernel
	// Names maps the tool names the provider saw back to the registry's
	// names, when definitions were lowered with it. If nil, names are
	// used as they come.
	Names *schema.NameMap
}

// Handler hands a model response to the kernel and returns the tool
// results in the same vendor shape. It is safe for concurrent use.
type Handler struct {
	k     *kernel.Kernel
	names *schema.NameMap
}

// New returns a handler for cfg.
func New(cfg *Config) (*Handler, error) {
	if cfg == nil || cfg.Kernel == nil {
		return nil, errors.New("mediator: a kernel is required")
	}
	return &Handler{k: cfg.Kernel, names: cfg.Names}, nil
}

// Batch is what applies to every call of one response.
type Batch struct {
	Principal kernel.Principal
	// Justification is used for calls without a "_justification"
	// argument.
	Justification string
	Mode          kernel.Mode
	Explain       bool
}

// Handle reads response in format f — an OpenAI Chat Completions
// response, an OpenAI Responses response, an Anthropic Messages response,
// or an MCP tools/call request — runs every tool call through the kernel
// in parallel, and returns the results encoded for the same vendor, ready
// to append to the conversation: a JSON array of tool messages (OpenAI
// Chat), a JSON array of function_call_output items (Responses), one user
// message of tool_result blocks (Anthropic), or a CallToolResult (MCP).
//
// An unknown tool, a denial, arguments that are not a JSON object, a
// validation failure, an executor error and a hook abort each become a
// tool-error result. The error is non-nil only when no call can be read
// from response (ErrUnreadable) or the kernel itself fails; a response
// without calls gives an empty result list.
func (m *Handler) Handle(ctx context.Context, f codec.Format, response []byte, b *Batch) ([]byte, []kernel.Outcome, error) {
	calls, err := decodeCalls(f, response)
	if err != nil {
		return nil, nil, err
	}
	reqs := make([]kernel.Request, len(calls))
	for i, c := range calls {
		if m.names != nil {
			if orig, ok := m.names.Unmap(c.Name); ok {
				c.Name = orig
			}
		}
		reqs[i] = kernel.Request{Principal: b.Principal, Call: c, Justification: b.Justification, Mode: b.Mode, Explain: b.Explain}
	}
	outs, err := m.k.CallBatch(ctx, reqs)
	if err != nil {
		return nil, outs, err
	}
	results := make([]tool.Result, len(outs))
	for i := range outs {
		results[i] = outs[i].Result
		results[i].CallID = calls[i].ID
		results[i].Name = calls[i].Name // the provider's name
	}
	var enc []byte
	switch f {
	case codec.OpenAI:
		enc, _, err = openai.EncodeResults(results)
	case codec.OpenAIResponses:
		enc, _, err = responses.EncodeResults(results)
	case codec.Anthropic:
		enc, _, err = anthropic.EncodeResults(results)
	case codec.MCP:
		if len(results) != 1 {
			return nil, outs, fmt.Errorf("%w: an MCP tools/call holds one call", ErrUnreadable)
		}
		enc, _, err = mcp.EncodeResult(&results[0])
	}
	if err != nil {
		return nil, outs, fmt.Errorf("mediator: encoding results: %w", err)
	}
	return enc, outs, nil
}

// decodeCalls reads the calls of a response with the vendor's codec. When
// the codec rejects the response because of one call's arguments, the
// calls are read leniently instead, so that the bad call gets a tool
// error and the good ones still run.
func decodeCalls(f codec.Format, data []byte) ([]tool.Call, error) {
	var calls []tool.Call
	var err error
	switch f {
	case codec.OpenAI, codec.OpenAIResponses, codec.Anthropic:
		var r *tool.Response
		switch f {
		case codec.OpenAI:
			r, err = openai.DecodeResponse(data)
		case codec.OpenAIResponses:
			r, err = responses.DecodeResponse(data)
		default:
			r, err = anthropic.DecodeResponse(data)
		}
		if err == nil {
			calls = r.Calls
		}
	case codec.MCP:
		var c *tool.Call
		if c, err = mcp.DecodeCall(data); err == nil {
			calls = []tool.Call{*c}
		}
	default:
		return nil, fmt.Errorf("mediator: format %q is not openai, openai-responses, anthropic or mcp", f)
	}
	if err == nil {
		return calls, nil
	}
	if lenient, ok := lenientCalls(f, data); ok {
		return lenient, nil
	}
	return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
}

// lenientCalls extracts id, name and raw arguments of each call from a
// response that is valid JSON but that the codec rejected. The arguments
// are left as they came; the kernel's strict decoding rejects them with a
// tool error.
func lenientCalls(f codec.Format, data []byte) ([]tool.Call, bool) {
	if strictjson.Check(data, nil) != nil || strictjson.KindOf(data) != strictjson.Object {
		return nil, false
	}
	str := func(obj []byte, key string) string {
		v := strictjson.Get(obj, key)
		if strictjson.KindOf(v) != strictjson.String {
			return ""
		}
		s, _ := strictjson.Unquote(v)
		return s
	}
	// rawArgs returns a string member's value as bytes, other JSON as is.
	rawArgs := func(v []byte) []byte {
		if strictjson.KindOf(v) == strictjson.String {
			s, _ := strictjson.Unquote(v)
			return []byte(s)
		}
		return v
	}
	var calls []tool.Call
	each := func(arr []byte, fn func(item []byte)) {
		if strictjson.KindOf(arr) == strictjson.Array {
			_ = strictjson.Elements(arr, func(_ int, v []byte) error {
				if strictjson.KindOf(v) == strictjson.Object {
					fn(v)
				}
				return nil
			})
		}
	}
	switch f {
	case codec.OpenAI:
		msg := data
		if ch := strictjson.Get(data, "choices"); ch != nil {
			each(ch, func(c []byte) {
				if msg == nil || &msg[0] == &data[0] {
					msg = strictjson.Get(c, "message")
				}
			})
		}
		each(strictjson.Get(msg, "tool_calls"), func(tc []byte) {
			fn := strictjson.Get(tc, "function")
			calls = append(calls, tool.Call{ID: str(tc, "id"), Name: str(fn, "name"), Arguments: rawArgs(strictjson.Get(fn, "arguments"))})
		})
	case codec.OpenAIResponses:
		each(strictjson.Get(data, "output"), func(it []byte) {
			if str(it, "type") == "function_call" {
				calls = append(calls, tool.Call{ID: str(it, "call_id"), Name: str(it, "name"), Arguments: rawArgs(strictjson.Get(it, "arguments"))})
			}
		})
	case codec.Anthropic:
		each(strictjson.Get(data, "content"), func(b []byte) {
			if str(b, "type") == "tool_use" {
				calls = append(calls, tool.Call{ID: str(b, "id"), Name: str(b, "name"), Arguments: rawArgs(strictjson.Get(b, "input"))})
			}
		})
	case codec.MCP:
		params := data
		if p := strictjson.Get(data, "params"); strictjson.KindOf(p) == strictjson.Object {
			params = p
		}
		id := strictjson.Get(data, "id")
		calls = append(calls, tool.Call{ID: string(id), Name: str(params, "name"), Arguments: rawArgs(strictjson.Get(params, "arguments"))})
	}
	for _, c := range calls {
		if c.Name == "" && c.ID == "" {
			return nil, false
		}
	}
	return calls, len(calls) > 0
}
