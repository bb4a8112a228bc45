// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/tool"
)

// ErrAmbiguous reports a document that several formats fit and read
// differently; [*AmbiguousError] says which.
var ErrAmbiguous = errors.New("detect: ambiguous format")

// ErrNoFormat reports a document in no format toolgate reads.
var ErrNoFormat = errors.New("detect: not in any tool definition format")

// AmbiguousError lists the formats that fit a document about equally well
// and decode it to different definitions.
type AmbiguousError struct {
	Candidates []Score
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	b.WriteString("detect: ambiguous format: ")
	for i, s := range e.Candidates {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.2f", s.Format, s.Confidence)
	}
	return b.String()
}

func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// DecodeAny detects the format of data and decodes it with that format's
// codec. When detection is ambiguous it decodes the document with every
// format close to the top; if those that succeed all read the same
// definitions (a bare {"name", "description", "parameters"} with plain
// JSON Schema types reads the same as OpenAI, LangChain, Gemini and BFCL),
// the choice does not matter and the most likely format is used.
// Otherwise it returns an [*AmbiguousError] naming the candidates, and the
// caller should ask for the format. The Result is returned in every case.
func DecodeAny(data []byte) (*codec.Tools, Result, error) {
	r := Detect(data)
	if r.Err != nil {
		return nil, r, r.Err
	}
	if r.Format == "" {
		return nil, r, ErrNoFormat
	}
	if !r.Ambiguous {
		t, err := Decode(r.Format, data)
		return t, r, err
	}
	var (
		first     *codec.Tools
		firstErr  error
		firstF    codec.Format
		agree     = true
		near      []Score
		succeeded int
	)
	for _, s := range r.Scores {
		if s.Confidence < AmbiguityRatio*r.Confidence {
			break
		}
		near = append(near, s)
		t, err := Decode(s.Format, data)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		succeeded++
		if first == nil {
			first, firstF = t, s.Format
			continue
		}
		if !sameDefs(first.Defs, t.Defs) {
			agree = false
		}
	}
	switch {
	case succeeded == 0:
		return nil, r, firstErr
	case !agree:
		return nil, r, &AmbiguousError{Candidates: near}
	}
	r.Format = firstF
	for _, s := range r.Scores {
		if s.Format == firstF {
			r.Confidence = s.Confidence
		}
	}
	return first, r, nil
}

// sameDefs reports whether two decodings read the same definitions. Schemas
// are compared as compact JSON: a codec that rewrites a schema (Gemini's and
// BFCL's type mapping) writes it without the input's whitespace, and layout
// is not a difference a user has to settle with --from.
func sameDefs(a, b []tool.Definition) bool {
	if len(a) != len(b) {
		return false
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
