// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// Request is one model request in the gateway's own terms, whichever
// front door it came through.
type Request struct {
	// API is the front door the request came through; Extra is only
	// meaningful to a backend of the same API.
	API   API
	Model string
	// System is the system prompt: system and developer messages, and
	// Anthropic's system blocks, in order.
	System   string
	Messages []Message
	Tools    []tool.Definition
	// Choice is the tool choice; nil when the client did not set one.
	Choice *tool.Choice
	// MaxTokens bounds the answer; 0 when the client did not set one.
	MaxTokens   int
	Temperature *float64
	TopP        *float64
	Stop        []string
	Stream      bool
	// IncludeUsage is true when a Chat Completions client asked for the
	// usage chunk.
	IncludeUsage bool
	// ReasoningEffort is OpenAI's reasoning effort ("low", "medium",
	// "high", …); ThinkingBudget Anthropic's budget_tokens (0: not set).
	ReasoningEffort string
	ThinkingBudget  int
	// Thinking is Anthropic's thinking type as sent ("enabled",
	// "adaptive", "disabled"; "" when not set) and ThinkingDisplay its
	// display ("summarized", "omitted").
	Thinking        string
	ThinkingDisplay string
	// Extra holds the top-level members the gateway does not translate,
	// passed through to a backend of the same API and refused otherwise.
	Extra map[string]json.RawMessage
	// gemini is what a Gemini client asked of the answer's shape.
	gemini geminiFront
	// front is what the Responses front door read that has no canonical
	// form (flattened names, hosted tools, reasoning.summary).
	front frontTools
	// plain, when set, is a plain Chat request's bytes (see [plainChat]):
	// the fields above are only those the gateway reads before writing
	// it for a backend, and [Handler.encodeFor] decodes it whole for a
	// backend that does not take it as it came.
	plain *plainChat
}

// Role is who wrote a message.
type Role string

// The roles. Tool results travel in RoleTool messages, one result a part.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	// RoleSystem is a system or developer message in the middle of the
	// conversation, kept in place; one before every other message is
	// the System prompt instead.
	RoleSystem Role = "system"
)

// Message is one turn of the conversation.
type Message struct {
	Role  Role
	Parts []Part
}

// PartKind says what a [Part] holds.
type PartKind uint8

// The kinds of part.
const (
	PartText PartKind = iota + 1
	PartImage
	// PartReasoning is an assistant's earlier reasoning, replayed: Text,
	// and Signature when the provider signed or encrypted it.
	PartReasoning
	// PartRedacted is encrypted reasoning (Anthropic redacted_thinking):
	// Data.
	PartRedacted
	// PartCall is an assistant's tool call: CallID, Name, Arguments.
	PartCall
	// PartResult is a tool's result: CallID, Content, IsError.
	PartResult
)

// Part is one piece of a message.
type Part struct {
	Kind PartKind
	Text string
	// Signature is the provider state of a reasoning part, and SignedBy
	// the API whose provider made it: it is replayed to that API only.
	Signature string
	SignedBy  API
	// URL is an image's address: http(s) or a data: URL.
	URL string
	// MediaType and Data are a base64 image's type and bytes.
	MediaType string
	Data      string
	CallID    string
	Name      string
	Arguments json.RawMessage
	Content   []Part
	IsError   bool
}

// ErrBadRequest reports a request the gateway refuses; it is wrapped in
// a [*RequestError] naming the member.
var ErrBadRequest = errors.New("gateway: bad request")

// RequestError is a client's request refused, with the JSON Pointer of
// the member at fault. Its message is for the client: it names members,
// never their values.
type RequestError struct {
	Pointer string
	Reason  string
	// Status is the HTTP status: 400 unless said otherwise.
	Status int
	Err    error
}

func (e *RequestError) Error() string {
	if e.Pointer == "" {
		return e.Reason
	}
	return e.Pointer + ": " + e.Reason
}

func (e *RequestError) Unwrap() error { return e.Err }

func badRequest(ptr, format string, args ...any) error {
	return &RequestError{Pointer: ptr, Reason: fmt.Sprintf(format, args...), Status: 400, Err: ErrBadRequest}
}

// members reads a JSON object strictly into its members. data has
// passed [checkBody] (or is a value inside a body that did), so its
// members are read with strictjson's walker without a second validity
// scan, each value a slice of data; anything the walker refuses takes
// encoding/json, with its errors.
func members(data []byte, ptr string) (map[string]json.RawMessage, error) {
	if strictjson.KindOf(data) == strictjson.Object {
		m := make(map[string]json.RawMessage, 8)
		if strictjson.Members(data, func(k, v []byte) error {
			m[string(k)] = v
			return nil
		}) == nil {
			return m, nil
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, badRequest(ptr, "must be a JSON object")
	}
	return m, nil
}

// memberSet is the members of a request body's object, in document
// order, as the decoders read it: a member read is taken out, and the
// members left are the request's Extra. A checked body's keys are
// unique ([checkBody] refuses a duplicate), so a key names one member;
// a request has a few dozen at most, and a scan for one costs less than
// a map's hash and buckets, above all when they are cold.
type memberSet struct {
	ms   []setMember
	left int
}

type setMember struct {
	key   string
	raw   json.RawMessage
	taken bool
}

// memberSetOf reads data, a JSON object, into a memberSet as [members]
// does.
func memberSetOf(data []byte, ptr string) (*memberSet, error) {
	s := &memberSet{}
	if strictjson.KindOf(data) == strictjson.Object {
		s.ms = make([]setMember, 0, 8)
		if strictjson.Members(data, func(k, v []byte) error {
			s.ms = append(s.ms, setMember{key: string(k), raw: v})
			return nil
		}) == nil {
			s.left = len(s.ms)
			return s, nil
		}
	}
	m, err := members(data, ptr)
	if err != nil {
		return nil, err
	}
	s.ms = s.ms[:0]
	for _, k := range extraKeys(m) {
		s.ms = append(s.ms, setMember{key: k, raw: m[k]})
	}
	s.left = len(s.ms)
	return s, nil
}

// find returns the place of key's member, or -1. It is not inlined: a
// decoder asks for a dozen members, and one copy of the loop is less
// code to bring into the caches than a copy at every call.
//
//go:noinline
func (s *memberSet) find(key string) int {
	for i := range s.ms {
		if !s.ms[i].taken && s.ms[i].key == key {
			return i
		}
	}
	return -1
}

// get returns key's member, if it is there.
func (s *memberSet) get(key string) (json.RawMessage, bool) {
	if i := s.find(key); i >= 0 {
		return s.ms[i].raw, true
	}
	return nil, false
}

// has reports whether key's member is there.
func (s *memberSet) has(key string) bool { return s.find(key) >= 0 }

// del takes key's member out, if it is there.
func (s *memberSet) del(key string) {
	if i := s.find(key); i >= 0 {
		s.ms[i].taken = true
		s.left--
	}
}

// set sets key's member to raw, in its place if it is there, else last.
func (s *memberSet) set(key string, raw json.RawMessage) {
	if i := s.find(key); i >= 0 {
		s.ms[i].raw = raw
		return
	}
	s.ms = append(s.ms, setMember{key: key, raw: raw})
	s.left++
}

// checkBody is the strict check every request body passes first.
func checkBody(data []byte, maxBytes int) error {
	err := strictjson.Check(data, &strictjson.Options{MaxBytes: maxBytes})
	if err == nil {
		return nil
	}
	var se *strictjson.Error
	if errors.As(err, &se) {
		if errors.Is(se.Err, strictjson.ErrTooLarge) {
			return &RequestError{Reason: "request body too large", Status: 413, Err: ErrBadRequest}
		}
		return &RequestError{Pointer: se.Pointer, Reason: "invalid JSON: " + se.Err.Error(), Status: 400, Err: ErrBadRequest}
	}
	return badRequest("", "invalid JSON")
}

// take removes key from m and decodes it into v.
func take(m *memberSet, key string, v any) error {
	i := m.find(key)
	if i < 0 {
		return nil
	}
	raw := m.ms[i].raw
	m.ms[i].taken = true
	m.left--
	if string(raw) == "null" {
		return nil
	}
	if fastTake(raw, v) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return badRequest("/"+key, "wrong type")
	}
	return nil
}

// fastTake decodes raw, a checked value, into the common kinds of v
// without encoding/json's validity scan and reflection. It reports
// whether it did; when not, v is untouched and encoding/json decides,
// errors included.
func fastTake(raw json.RawMessage, v any) bool {
	switch p := v.(type) {
	case *string:
		if len(raw) > 0 && raw[0] == '"' {
			if s, err := strictjson.Unquote(raw); err == nil {
				*p = s
				return true
			}
		}
	case *bool:
		switch string(raw) {
		case "true":
			*p = true
			return true
		case "false":
			*p = false
			return true
		}
	case *int:
		// encoding/json reads an integer with ParseInt and refuses a
		// fraction or an exponent, which ParseInt refuses too.
		if isNumber(raw) {
			if n, err := parseInt(raw, 0); err == nil {
				*p = int(n)
				return true
			}
		}
	case *float64:
		if isNumber(raw) {
			if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
				*p = f
				return true
			}
		}
	case **float64:
		if isNumber(raw) {
			if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
				*p = &f
				return true
			}
		}
	case *[]json.RawMessage:
		if len(raw) > 0 && raw[0] == '[' {
			out := make([]json.RawMessage, 0, 4)
			if strictjson.Elements(raw, func(_ int, e []byte) error {
				out = append(out, e)
				return nil
			}) == nil {
				*p = out
				return true
			}
		}
	case *streamOptions:
		// encoding/json matches a member to the field whatever its
		// case and ignores the others; a value it would refuse, or a
		// name that is include_usage in another case, is left to it.
		if len(raw) == 0 || raw[0] != '{' {
			return false
		}
		so := *p
		ok := strictjson.Members(raw, func(k, v []byte) error {
			switch {
			case string(k) == "include_usage" && (string(v) == "true" || string(v) == "false"):
				so.IncludeUsage = string(v) == "true"
			case string(k) == "include_usage" && string(v) == "null":
			case strings.EqualFold(string(k), "include_usage"):
				return errFastBail
			}
			return nil
		}) == nil
		if ok {
			*p = so
		}
		return ok
	case *[]messagesMessageIn:
		if out, ok := fastMessagesMessages(raw); ok {
			*p = out
			return true
		}
	}
	return false
}

// errFastBail stops a fast reader's walk: the value is encoding/json's
// to read.
var errFastBail = errors.New("gateway: left to encoding/json")

// isNumber reports whether raw, a checked value, is a number: then
// strconv reads it as encoding/json does.
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// rest keeps the members not read as Extra.
func rest(m *memberSet) map[string]json.RawMessage {
	if m.left == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, m.left)
	for _, mb := range m.ms {
		if !mb.taken {
			out[mb.key] = mb.raw
		}
	}
	return out
}

// extraKeys lists Extra's keys in order, for messages.
func extraKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DecodeRequest reads a client's request body for front door api.
// maxBytes bounds the body (0: strictjson's default; negative: none).
func DecodeRequest(api API, body []byte, maxBytes int) (*Request, error) {
	if err := checkBody(body, maxBytes); err != nil {
		return nil, err
	}
	return decodeChecked(api, body)
}

// decodeChecked is [DecodeRequest] of a body that passed [checkBody].
func decodeChecked(api API, body []byte) (*Request, error) {
	m, err := memberSetOf(body, "")
	if err != nil {
		return nil, err
	}
	r := &Request{API: api}
	switch api {
	case APIChat:
		err = decodeChatRequest(r, m)
	case APIMessages:
		err = decodeMessagesRequest(r, m)
	case APIResponses:
		err = decodeResponsesRequest(r, m)
	case APIGemini:
		err = decodeGeminiRequest(r, m)
	default:
		return nil, errors.New("gateway: unknown api " + string(api))
	}
	if err != nil {
		return nil, err
	}
	r.Extra = rest(m)
	if err := checkMembers(api, r.Extra); err != nil {
		return nil, err
	}
	if r.Model == "" {
		return nil, badRequest("/model", "is required")
	}
	return r, nil
}
