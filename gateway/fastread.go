// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// chatMessageIn is a Chat Completions message as the request decoder
// reads it; members it does not name are ignored, as encoding/json
// ignores them.
type chatMessageIn struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCalls        []chatCallIn    `json:"tool_calls"`
}

type chatCallIn struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// decodeChatMessage reads raw, a message of a checked body, into msg.
// The usual message (exact member names, each of its type or null) is
// read by strictjson's walker without a validity scan or reflection;
// anything else (a name that differs only in case, which encoding/json
// matches, or a wrong type) is left to encoding/json, so that the result
// and the errors are encoding/json's in every case
// (FuzzDecodeChatMessage holds the two to that).
func decodeChatMessage(raw []byte, msg *chatMessageIn) error {
	*msg = chatMessageIn{}
	if fastChatMessage(raw, msg) {
		return nil
	}
	// What the fast reading set before it gave up is not the message's.
	*msg = chatMessageIn{}
	return json.Unmarshal(raw, msg)
}

// errUnusual sends a value to encoding/json.
var errUnusual = errors.New("gateway: not the usual shape")

// fastChatMessage reads the usual message; false leaves the decision to
// encoding/json.
func fastChatMessage(raw []byte, msg *chatMessageIn) bool {
	if strictjson.KindOf(raw) != strictjson.Object {
		return false
	}
	err := strictjson.Members(raw, func(k, v []byte) error {
		switch string(k) {
		case "role":
			return fastString(v, &msg.Role)
		case "content":
			msg.Content = v
		case "reasoning_content":
			return fastOptString(v, &msg.ReasoningContent)
		case "reasoning":
			return fastOptString(v, &msg.Reasoning)
		case "tool_call_id":
			return fastString(v, &msg.ToolCallID)
		case "tool_calls":
			return fastChatCalls(v, &msg.ToolCalls)
		default:
			return foldsTo(k, "role", "content", "reasoning_content", "reasoning", "tool_call_id", "tool_calls")
		}
		return nil
	})
	return err == nil
}

func fastChatCalls(v []byte, calls *[]chatCallIn) error {
	if null, err := nullOr(v, strictjson.Array); null || err != nil {
		*calls = nil
		return err
	}
	out := make([]chatCallIn, 0, 2)
	err := strictjson.Elements(v, func(_ int, e []byte) error {
		var c chatCallIn
		if strictjson.KindOf(e) != strictjson.Object {
			return errUnusual
		}
		err := strictjson.Members(e, func(k, v []byte) error {
			switch string(k) {
			case "id":
				return fastString(v, &c.ID)
			case "type":
				return fastString(v, &c.Type)
			case "function":
				if null, err := nullOr(v, strictjson.Object); null || err != nil {
					return err
				}
				return strictjson.Members(v, func(k, v []byte) error {
					switch string(k) {
					case "name":
						return fastString(v, &c.Function.Name)
					case "arguments":
						return fastString(v, &c.Function.Arguments)
					}
					return foldsTo(k, "name", "arguments")
				})
			}
			return foldsTo(k, "id", "type", "function")
		})
		out = append(out, c)
		return err
	})
	if err != nil {
		return err
	}
	*calls = out
	return nil
}

// nullOr reports whether v is null; errUnusual when it is neither null
// nor of kind k.
func nullOr(v []byte, k strictjson.Kind) (null bool, err error) {
	switch strictjson.KindOf(v) {
	case strictjson.Null:
		return true, nil
	case k:
		return false, nil
	}
	return false, errUnusual
}

// foldsTo returns errUnusual when k, a member no case of the switch named,
// equals one of names but for case: encoding/json matches it.
func foldsTo(k []byte, names ...string) error {
	ascii := true
	for _, c := range k {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	for _, n := range names {
		// An ASCII name folds only to one of its own length (the names
		// are ASCII); another can fold to a shorter one (K, the Kelvin
		// sign, is k).
		if (!ascii || len(k) == len(n)) && strings.EqualFold(string(k), n) {
			return errUnusual
		}
	}
	return nil
}

// fastString reads a string or null (which leaves *dst as it is).
func fastString(v []byte, dst *string) error {
	if string(v) == "null" {
		return nil
	}
	if len(v) == 0 || v[0] != '"' {
		return errUnusual
	}
	s, err := strictjson.Unquote(v)
	if err != nil {
		return errUnusual
	}
	*dst = s
	return nil
}

// fastOptString reads a string into a new *string; null makes it nil.
func fastOptString(v []byte, dst **string) error {
	if string(v) == "null" {
		*dst = nil
		return nil
	}
	var s string
	if err := fastString(v, &s); err != nil {
		return err
	}
	*dst = &s
	return nil
}

// decodeChatUsage reads a usage object of a checked body as
// encoding/json reads it into u, by the walker when it has the usual
// shape (FuzzDecodeChatUsage holds the two to the same result).
func decodeChatUsage(v []byte, u *chatUsage) error {
	var fast chatUsage
	if fastChatUsage(v, &fast) == nil {
		*u = fast
		return nil
	}
	return json.Unmarshal(v, u)
}

func fastChatUsage(v []byte, u *chatUsage) error {
	if strictjson.KindOf(v) != strictjson.Object {
		return errUnusual
	}
	return strictjson.Members(v, func(k, v []byte) error {
		switch string(k) {
		case "prompt_tokens":
			return fastOptInt(v, &u.PromptTokens)
		case "completion_tokens":
			return fastOptInt(v, &u.CompletionTokens)
		case "prompt_tokens_details":
			obj, n, err := fastDetail(v, "cached_tokens")
			u.PromptTokensDetails = nil
			if obj {
				u.PromptTokensDetails = &chatPromptDetails{CachedTokens: n}
			}
			return err
		case "completion_tokens_details":
			obj, n, err := fastDetail(v, "reasoning_tokens")
			u.CompletionTokensDetails = nil
			if obj {
				u.CompletionTokensDetails = &chatCompletionDetails{ReasoningTokens: n}
			}
			return err
		}
		return foldsTo(k, "prompt_tokens", "completion_tokens", "prompt_tokens_details", "completion_tokens_details")
	})
}

// fastDetail reads a details object whose one member the gateway reads
// is the integer name: obj is false for null.
func fastDetail(v []byte, name string) (obj bool, n *int64, err error) {
	if null, err := nullOr(v, strictjson.Object); null || err != nil {
		return false, nil, err
	}
	err = strictjson.Members(v, func(k, v []byte) error {
		if string(k) == name {
			return fastOptInt(v, &n)
		}
		return foldsTo(k, name)
	})
	return true, n, err
}

// fastOptInt reads an integer into a new *int64; null makes it nil.
// Anything else (a fraction, an exponent, out of range) is left to
// encoding/json.
func fastOptInt(v []byte, dst **int64) error {
	if string(v) == "null" {
		*dst = nil
		return nil
	}
	n, err := parseInt(v, 64)
	if err != nil {
		return errUnusual
	}
	*dst = &n
	return nil
}

// parseInt is strconv.ParseInt(string(v), 10, bitSize), with the usual
// case, a sign and a few digits, read here: ParseInt is a large function
// for the two or three counts a request and its answer carry, and on a
// request that finds its code out of the caches each line of it costs.
func parseInt(v []byte, bitSize int) (int64, error) {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	// 18 digits cannot overflow 64 bits, 9 cannot overflow 32.
	most := 18
	if bitSize == 32 || bitSize == 0 && strconv.IntSize == 32 {
		most = 9
	}
	if len(d) == 0 || len(d) > most || bitSize != 0 && bitSize != 32 && bitSize != 64 {
		return strconv.ParseInt(string(v), 10, bitSize)
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return strconv.ParseInt(string(v), 10, bitSize)
		}
		n = n*10 + int64(c-'0')
	}
	if len(d) < len(v) {
		n = -n
	}
	return n, nil
}
