// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// chunk is one Chat Completions chunk as the decoder needs it. It is
// read with strictjson's walkers rather than encoding/json: this is the
// hot path of every OpenAI-compatible backend, once per token.
type chunk struct {
	id, model string
	choices   []choice
	usage     *chatUsage
	err       *apiError
	// names keeps the id and model read last: every chunk of a stream
	// repeats them, and they are read again only when they change.
	names nameCache
}

type choice struct {
	index                                         int
	content, refusal, reasoning, reasoningContent string
	calls                                         []chunkCall
	finish                                        string
	// The raw strings content, reasoning and reasoning_content were read
	// from (slices of the chunk), for the decoder's template.
	contentRaw, reasoningRaw, reasoningContentRaw []byte
}

type chunkCall struct {
	index     int
	hasIndex  bool
	id, name  string
	arguments string
}

// errType is a member of the wrong type; its pointer is in the
// StreamError's detail.
var errType = errors.New("wrong type")

type typeError struct{ ptr string }

func (e *typeError) Error() string { return "wrong type at " + e.ptr }
func (e *typeError) Unwrap() error { return errType }

// str reads a string or null; the error's pointer is ptr+member, joined
// only when there is an error (these run for every member of every
// chunk).
func str(v []byte, ptr, member string) (string, error) {
	switch {
	case len(v) > 0 && v[0] == '"':
		return strictjson.Unquote(v)
	case bytes.Equal(v, []byte("null")):
		return "", nil
	}
	return "", &typeError{ptr + member}
}

// num reads an integer; see [str] for the pointer.
func num(v []byte, ptr, member string) (int, error) {
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, &typeError{ptr + member}
	}
	return n, nil
}

// choicePtrs are the pointers of the first choices and of their delta
// and message members, built once rather than for every chunk.
var choicePtrs = func() (t [4][3]string) {
	for i := range t {
		p := "/choices/" + strconv.Itoa(i)
		t[i] = [3]string{p, p + "/delta", p + "/message"}
	}
	return t
}()

// choicePtr is the pointer of choice i.
func choicePtr(i int) string {
	if i < len(choicePtrs) {
		return choicePtrs[i][0]
	}
	return "/choices/" + strconv.Itoa(i)
}

// parseChunk reads data, which passed strictjson.Check, into c (reusing
// its slices).
func parseChunk(data []byte, c *chunk) error {
	c.id, c.model, c.usage, c.err = "", "", nil, nil
	c.choices = c.choices[:0]
	if strictjson.KindOf(data) != strictjson.Object {
		return &typeError{""}
	}
	return strictjson.Members(data, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "id":
			err = c.name(0, v, &c.id, "/id")
		case "model":
			err = c.name(1, v, &c.model, "/model")
		case "choices":
			if v[0] == 'n' {
				return nil
			}
			if v[0] != '[' {
				return &typeError{"/choices"}
			}
			err = strictjson.Elements(v, func(i int, cv []byte) error {
				c.choices = append(c.choices, choice{})
				return parseChoice(cv, &c.choices[len(c.choices)-1], i)
			})
		case "usage":
			if v[0] == 'n' {
				return nil
			}
			var u chatUsage
			if decodeChatUsage(v, &u) != nil {
				return &typeError{"/usage"}
			}
			c.usage = &u
		case "error":
			if v[0] == 'n' {
				return nil
			}
			var e apiError
			if json.Unmarshal(v, &e) != nil {
				return &typeError{"/error"}
			}
			c.err = &e
		}
		return err
	})
}

// name reads a string or null as str does, through the chunk's name
// cache.
func (c *chunk) name(slot int, v []byte, dst *string, ptr string) error {
	if len(v) > 0 && v[0] == '"' && c.names.read(slot, v, dst) == nil {
		return nil
	}
	var err error
	*dst, err = str(v, "", ptr)
	return err
}

func parseChoice(v []byte, ch *choice, i int) error {
	ptr := choicePtr(i)
	if v[0] != '{' {
		return &typeError{ptr}
	}
	ch.calls = ch.calls[:0]
	return strictjson.Members(v, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "index":
			ch.index, err = num(v, ptr, "/index")
		case "finish_reason":
			ch.finish, err = str(v, ptr, "/finish_reason")
		case "delta", "message":
			if v[0] == 'n' {
				return nil
			}
			// The pointer names the member the body holds: delta in a
			// stream's chunk, message in a whole answer.
			which := 1
			if string(key) == "message" {
				which = 2
			}
			var dp string
			if i < len(choicePtrs) {
				dp = choicePtrs[i][which]
			} else {
				dp = ptr + [...]string{"", "/delta", "/message"}[which]
			}
			if v[0] != '{' {
				return &typeError{dp}
			}
			err = strictjson.Members(v, func(key, v []byte) error {
				var err error
				switch string(key) {
				case "content":
					ch.content, err = str(v, dp, "/content")
					ch.contentRaw = v
				case "refusal":
					ch.refusal, err = str(v, dp, "/refusal")
				case "reasoning":
					ch.reasoning, err = str(v, dp, "/reasoning")
					ch.reasoningRaw = v
				case "reasoning_content":
					ch.reasoningContent, err = str(v, dp, "/reasoning_content")
					ch.reasoningContentRaw = v
				case "tool_calls":
					if v[0] == 'n' {
						return nil
					}
					if v[0] != '[' {
						return &typeError{dp + "/tool_calls"}
					}
					err = strictjson.Elements(v, func(i int, tv []byte) error {
						ch.calls = append(ch.calls, chunkCall{})
						return parseCall(tv, &ch.calls[len(ch.calls)-1], dp+"/tool_calls/"+strconv.Itoa(i))
					})
				}
				return err
			})
		}
		return err
	})
}

func parseCall(v []byte, tc *chunkCall, ptr string) error {
	if v[0] != '{' {
		return &typeError{ptr}
	}
	return strictjson.Members(v, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "index":
			tc.index, err = num(v, ptr, "/index")
			tc.hasIndex = err == nil
		case "id":
			tc.id, err = str(v, ptr, "/id")
		case "function":
			if v[0] == 'n' {
				return nil
			}
			if v[0] != '{' {
				return &typeError{ptr + "/function"}
			}
			err = strictjson.Members(v, func(key, v []byte) error {
				var err error
				switch string(key) {
				case "name":
					tc.name, err = str(v, ptr, "/function/name")
				case "arguments":
					if len(v) > 0 && v[0] == '{' {
						// A server that sends the arguments as an
						// object rather than a string.
						tc.arguments = string(v)
						return nil
					}
					tc.arguments, err = str(v, ptr, "/function/arguments")
				}
				return err
			})
		}
		return err
	})
}
