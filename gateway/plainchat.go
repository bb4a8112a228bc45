// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"errors"
	"strconv"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// A plain Chat request is checked and forwarded to a Chat backend
// instead of being decoded into a [Request] and written again. It is
// one that the decoder and [EncodeRequest] would hand on unchanged but
// for the members the gateway sets itself (the model, the answer's
// bound, stream and stream_options):
//
//   - its members are model (a string that is not empty), messages,
//     stream, stream_options (include_usage alone), one of max_tokens
//     and max_completion_tokens (a positive integer the decoder takes),
//     temperature and top_p (numbers), and members that the member
//     table passes to a Chat backend as they are (seed, user,
//     presence_penalty, …) with a value of a kind it allows;
//   - messages is an array of at least one message of exactly role and
//     content, content a string, role user or assistant, or system for
//     the first message only, with content that is not empty (the
//     decoder makes that the system prompt, which the encoder writes
//     back as the same first message).
//
// Every other request, and every request to a provider that changes
// what it sends (a text model, two passes, members of its own; see
// [plainProvider]) or that would drop one of the request's members,
// takes the decoder. The messages go out as the client
// wrote them: the document passed the strict check, so their strings
// are valid UTF-8 with no unpaired surrogate, and mean what the
// encoder's would. TestPlainChatSame and FuzzPlainChatSame hold the two
// paths to the same request, member for member.
type plainChat struct {
	body     []byte
	messages []byte // the messages member's value, as sent
	// temperature and topP are the numbers as sent; nil when not set.
	temperature []byte
	topP        []byte
	// extra are the members passed as they came, in the order sent.
	extra []plainMember
}

// plainMember is a member of a plain request that the member table
// passes to a Chat backend: its rule and where its value is.
type plainMember struct {
	rule       *MemberRule
	start, end int
}

// errNotPlain stops a walk over a request that is not plain.
var errNotPlain = errors.New("not a plain request")

// decodePlainChat is the Request the decoder would make of body, a Chat
// Completions request that passed [checkBody], when body is plain: with
// the fields the gateway reads before it writes the request for a
// backend, and the request's bytes for [plainOutbound]. It is nil when
// body is not plain.
func decodePlainChat(body []byte) *Request {
	r := &Request{API: APIChat}
	pc := &plainChat{body: body}
	bound := false // max_tokens or max_completion_tokens came
	_, err := strictjson.WalkObject(body, 0, func(key []byte, vs int) (int, error) {
		switch string(key) {
		case "model":
			ve := strictjson.SkipValue(body, vs)
			if body[vs] != '"' || ve-vs <= 2 {
				return ve, errNotPlain
			}
			s, err := strictjson.Unquote(body[vs:ve])
			if err != nil || s == "" {
				return ve, errNotPlain
			}
			r.Model = s
			return ve, nil
		case "messages":
			ve, err := plainMessages(body, vs)
			pc.messages = body[vs:ve]
			return ve, err
		case "stream":
			return plainBool(body, vs, &r.Stream)
		case "stream_options":
			return strictjson.WalkObject(body, vs, func(key []byte, vs int) (int, error) {
				if string(key) != "include_usage" {
					return vs, errNotPlain
				}
				return plainBool(body, vs, &r.IncludeUsage)
			})
		case "max_tokens", "max_completion_tokens":
			if bound {
				return vs, errNotPlain
			}
			bound = true
			ve := strictjson.SkipValue(body, vs)
			n, ok := plainBound(body[vs:ve])
			if !ok {
				return ve, errNotPlain
			}
			r.MaxTokens = n
			return ve, nil
		case "temperature", "top_p":
			ve := strictjson.SkipValue(body, vs)
			if c := body[vs]; c != '-' && (c < '0' || c > '9') {
				return ve, errNotPlain
			}
			if string(key) == "temperature" {
				pc.temperature = body[vs:ve]
			} else {
				pc.topP = body[vs:ve]
			}
			return ve, nil
		}
		rule := memberIndex[APIChat][string(key)]
		if rule == nil || rule.By[KindChat] != Passed || rule.Name == "messages" {
			return vs, errNotPlain
		}
		ve := strictjson.SkipValue(body, vs)
		if k := kindOf(body[vs:ve]); k != 0 && k&rule.kinds == 0 {
			return ve, errNotPlain // the decoder refuses it
		}
		pc.extra = append(pc.extra, plainMember{rule: rule, start: vs, end: ve})
		return ve, nil
	})
	if err != nil || r.Model == "" || len(pc.messages) == 0 {
		return nil
	}
	r.plain = pc
	return r
}

// plainMessages walks the messages array that starts at data[vs],
// returning errNotPlain at the first message that is not plain.
func plainMessages(data []byte, vs int) (int, error) {
	if data[vs] != '[' {
		return vs, errNotPlain
	}
	n := 0
	ve, err := strictjson.WalkArray(data, vs, func(i, ms int) (int, error) {
		n++
		var role, content []byte
		me, err := strictjson.WalkObject(data, ms, func(key []byte, vs int) (int, error) {
			ve := strictjson.SkipValue(data, vs)
			switch string(key) {
			case "role":
				role = data[vs:ve]
			case "content":
				content = data[vs:ve]
			default:
				return ve, errNotPlain
			}
			return ve, nil
		})
		if err != nil {
			return me, err
		}
		if len(content) == 0 || content[0] != '"' {
			return me, errNotPlain
		}
		switch string(role) {
		case `"user"`, `"assistant"`:
		case `"system"`:
			if i > 0 || len(content) == 2 {
				return me, errNotPlain
			}
		default:
			return me, errNotPlain
		}
		return me, nil
	})
	if err == nil && n == 0 {
		err = errNotPlain
	}
	return ve, err
}

// plainBool reads a true or false at data[vs].
func plainBool(data []byte, vs int, dst *bool) (int, error) {
	ve := strictjson.SkipValue(data, vs)
	switch string(data[vs:ve]) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return ve, errNotPlain
	}
	return ve, nil
}

// plainBound is the bound raw says when [tokenBound] would take it
// without a word: a positive integer within maxBound.
func plainBound(raw []byte) (int, bool) {
	if len(raw) == 0 || raw[0] == '0' {
		return 0, false
	}
	n, ok := smallIndex(raw)
	return n, ok && n <= maxBound
}

// plainProvider reports whether p takes a plain request as it came: a
// Chat backend with no text-model parser, one pass and no members of
// its own for a request that asks for no reasoning.
func plainProvider(p *Provider) bool {
	if p.API != APIChat || p.ToolParser != "" || usesTwoPasses(p) {
		return false
	}
	return len(backendOptions(p, &Request{API: APIChat}).Extra) == 0
}

// plainOutbound writes r, a plain request, for p, a [plainProvider]: the
// body [EncodeRequest] would write, with the client's messages, numbers
// and members as they came. It is nil when p does not take one of the
// members as it came (an OpenAI-only member to another server).
func plainOutbound(r *Request, p *Provider) *Outbound {
	pc := r.plain
	for _, m := range pc.extra {
		if m.rule.Handling(KindChat, p.Compat) != Passed {
			return nil
		}
	}
	out := &Outbound{whole: !r.Stream}
	b := make([]byte, 0, len(pc.body)+len(p.Model)+160)
	b = jsonStr(append(b, `{"model":`...), p.Model)
	b = append(append(b, `,"messages":`...), pc.messages...)
	maxTokens := r.MaxTokens
	if maxTokens == 0 {
		maxTokens = p.MaxTokens
	}
	if maxTokens > 0 {
		key := `,"max_completion_tokens":`
		if p.Compat {
			key = `,"max_tokens":`
		}
		b = strconv.AppendInt(append(b, key...), int64(maxTokens), 10)
	}
	switch {
	case pc.temperature != nil:
		b = append(append(b, `,"temperature":`...), pc.temperature...)
	case p.Temperature != nil:
		b = strconv.AppendFloat(append(b, `,"temperature":`...), *p.Temperature, 'g', -1, 64)
	}
	if pc.topP != nil {
		b = append(append(b, `,"top_p":`...), pc.topP...)
	}
	if out.whole {
		b = append(b, `,"stream":false`...)
	} else {
		b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	}
	for _, m := range pc.extra {
		b = append(append(jsonStr(append(b, ','), m.rule.Name), ':'), pc.body[m.start:m.end]...)
	}
	out.Body = append(b, '}')
	return out
}
