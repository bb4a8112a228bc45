// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// JustificationArg is the argument name a model may use to justify a
// call. The kernel removes it before validation, so schemas need not
// declare it.
const JustificationArg = "_justification"

// ErrInvalidArguments reports arguments that are not a strict JSON object.
// Errors from [DecodeArguments] match it and are [*ArgumentsError]s.
var ErrInvalidArguments = errors.New("kernel: invalid arguments")

// ArgumentsError is the error [DecodeArguments] returns. It matches
// [ErrInvalidArguments] with errors.Is, and Err, when set, is the cause (a
// [*strictjson.Error] naming the offset and pointer of the problem).
type ArgumentsError struct {
	// Msg says what is wrong, for the model that sent the arguments. It
	// may quote an object member name; the kernel redacts it before
	// anything leaves.
	Msg string
	// Err is the cause, or nil.
	Err error
}

func (e *ArgumentsError) Error() string { return ErrInvalidArguments.Error() + ": " + e.Msg }

// Unwrap returns [ErrInvalidArguments] and the cause.
func (e *ArgumentsError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalidArguments}
	}
	return []error{ErrInvalidArguments, e.Err}
}

// DecodeArguments checks raw tool-call arguments strictly (see package
// strictjson): one JSON object, no duplicate names, valid UTF-8, within
// size and depth limits. Empty arguments mean {}. A "_justification"
// string member is removed and returned. The returned bytes are what the
// executor receives; when nothing was removed they are raw itself.
func DecodeArguments(raw json.RawMessage, opts *strictjson.Options) (args json.RawMessage, justification string, err error) {
	if len(trimSpace(raw)) == 0 {
		return json.RawMessage("{}"), "", nil
	}
	if err := strictjson.Check(raw, opts); err != nil {
		return nil, "", &ArgumentsError{Msg: err.Error(), Err: err}
	}
	if k := strictjson.KindOf(raw); k != strictjson.Object {
		return nil, "", &ArgumentsError{Msg: fmt.Sprintf("arguments are a JSON %s, not an object", k)}
	}
	// Most calls carry no justification; skip the member walk unless the
	// name could be present, escaped or not.
	if !bytes.Contains(raw, []byte("justification")) && !bytes.Contains(raw, []byte(`\u`)) {
		return raw, "", nil
	}
	j := strictjson.Get(raw, JustificationArg)
	if j == nil {
		return raw, "", nil
	}
	if strictjson.KindOf(j) != strictjson.String {
		return nil, "", &ArgumentsError{Msg: JustificationArg + " must be a string"}
	}
	justification, _ = strictjson.Unquote(j)
	out := make([]byte, 0, len(raw))
	out = append(out, '{')
	n := 0
	_ = strictjson.Members(raw, func(key, val []byte) error {
		if string(key) == JustificationArg {
			return nil
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = strictjson.AppendQuote(out, string(key))
		out = append(out, ':')
		out = append(out, val...)
		return nil
	})
	out = append(out, '}')
	return out, justification, nil
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isWS(b[i]) {
		i++
	}
	for j > i && isWS(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
