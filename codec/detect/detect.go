// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
)

// Score is the confidence, from 0 to 1, that a document is in Format.
type Score struct {
	Format     codec.Format `json:"format"`
	Confidence float64      `json:"confidence"`
}

// Result is what [Detect] found.
type Result struct {
	// Format is the most likely format, or "" when no structure of any
	// format was found (or the document is not JSON).
	Format codec.Format `json:"format"`
	// Confidence is Format's score.
	Confidence float64 `json:"confidence"`
	// Scores holds every format, most likely first (ties by name). The
	// confidences sum to 1 when anything was found.
	Scores []Score `json:"scores"`
	// Ambiguous is true when the second format scores within
	// [AmbiguityRatio] of the first: a bare {"name", "parameters"} object
	// is valid OpenAI, LangChain, Gemini and BFCL alike. Pass --from (or
	// call a codec directly) to choose.
	Ambiguous bool `json:"ambiguous"`
	// Evidence lists the structural facts the scores rest on, each with a
	// JSON Pointer: "/tools/0: inputSchema (mcp)".
	Evidence []string `json:"evidence"`
	// Err is why the document could not be read, if it could not.
	Err error `json:"-"`
}

// AmbiguityRatio is how close the runner-up's confidence must be to the
// winner's (as a fraction of it) for a result to be ambiguous.
const AmbiguityRatio = 0.8

// maxSamples bounds how many tools of a list are examined: the evidence
// of a few is as good as that of all, and detection stays cheap on a
// 100 MB catalog.
const maxSamples = 16

// formats is every format, in the order ties are broken.
var formats = [...]codec.Format{codec.OpenAI, codec.OpenAIResponses, codec.Anthropic, codec.MCP, codec.Gemini, codec.LangChain, codec.JSONSchema, codec.Canonical, codec.BFCL}

type scorer struct {
	score    map[codec.Format]float64
	evidence []string
	seen     map[reasonKey]bool // reasons already in evidence
}

// add scores format f by w for the reason why found at ptr. Evidence keeps
// the first place each reason was seen, so a list of a hundred tools of
// one shape gives one line, not a hundred.
func (s *scorer) add(f codec.Format, w float64, ptr, why string) {
	s.addAll(ptr, why, weight{f, w})
}

type weight struct {
	f codec.Format
	w float64
}

// reasonKey identifies a reason for the evidence list without building
// its text.
type reasonKey struct {
	why   string
	first codec.Format
	n     int
}

// addAll scores several formats for one reason.
func (s *scorer) addAll(ptr, why string, ws ...weight) {
	for _, w := range ws {
		s.score[w.f] += w.w
	}
	key := reasonKey{why, ws[0].f, len(ws)}
	if s.seen[key] || len(s.evidence) >= 32 {
		return
	}
	s.seen[key] = true
	var b strings.Builder
	if ptr == "" {
		ptr = "/"
	}
	b.WriteString(ptr)
	b.WriteString(": ")
	b.WriteString(why)
	b.WriteString(" (")
	for i, w := range ws {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(w.f))
	}
	b.WriteByte(')')
	s.evidence = append(s.evidence, b.String())
}

// Detect reports which definition format data is most likely in, from the
// structure of the document alone: which members exist where, and the
// type names its schemas use. It never searches the raw text. JSON Lines
// (as BFCL ships) are judged by their first line. Detect does not decode:
// a document may look like a format and still fail that codec's checks.
func Detect(data []byte) Result {
	s := &scorer{score: map[codec.Format]float64{}, seen: map[reasonKey]bool{}}
	if err := strictjson.Check(data, nil); err != nil {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i]
		}
		if len(line) == len(data) || strictjson.Check(line, nil) != nil {
			return finish(s, err)
		}
		s.evidence = append(s.evidence, "/: JSON Lines, judged by the first line")
		data = line
	}
	s.container(data, "", 0)
	return finish(s, nil)
}

func finish(s *scorer, err error) Result {
	r := Result{Err: err, Evidence: s.evidence}
	total := 0.0
	for _, f := range formats {
		total += s.score[f]
	}
	for _, f := range formats {
		c := 0.0
		if total > 0 {
			c = s.score[f] / total
		}
		r.Scores = append(r.Scores, Score{Format: f, Confidence: c})
	}
	sort.SliceStable(r.Scores, func(i, j int) bool { return r.Scores[i].Confidence > r.Scores[j].Confidence })
	if total > 0 {
		r.Format, r.Confidence = r.Scores[0].Format, r.Scores[0].Confidence
		r.Ambiguous = r.Scores[1].Confidence >= AmbiguityRatio*r.Scores[0].Confidence
	}
	return r
}

func join(ptr, key string) string { return ptr + "/" + strictjson.EscapePointer(key) }

// keys returns the member names and values of an object.
func members(v []byte) map[string][]byte {
	m := map[string][]byte{}
	_ = strictjson.Members(v, func(k, val []byte) error {
		m[string(k)] = val
		return nil
	})
	return m
}

func isString(v []byte, want string) bool {
	if strictjson.KindOf(v) != strictjson.String {
		return false
	}
	s, err := strictjson.Unquote(v)
	return err == nil && s == want
}

// container scores the document's outer shape and then each tool in it.
func (s *scorer) container(v []byte, ptr string, depth int) {
	if depth > 3 {
		return
	}
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		s.list(v, ptr, depth)
		return
	case strictjson.Object:
	default:
		return
	}
	m := members(v)
	if _, ok := m["jsonrpc"]; ok {
		if res, ok := m["result"]; ok {
			s.add(codec.MCP, 1, join(ptr, "jsonrpc"), "a JSON-RPC response")
			s.container(res, join(ptr, "result"), depth+1)
			return
		}
	}
	for _, k := range []string{"functionDeclarations", "function_declarations"} {
		if decls, ok := m[k]; ok && strictjson.KindOf(decls) == strictjson.Array {
			s.add(codec.Gemini, 4, join(ptr, k), k)
			s.list(decls, join(ptr, k), depth)
			return
		}
	}
	_, hasName := m["name"]
	_, hasTitle := m["title"]
	if fn, ok := m["function"]; ok && !hasName {
		if _, q := m["question"]; q {
			s.add(codec.BFCL, 4, join(ptr, "question"), "a BFCL test line (id, question, function)")
			if strictjson.KindOf(fn) == strictjson.Array {
				s.list(fn, join(ptr, "function"), depth)
			}
			return
		}
	}
	if _, ok := m["involved_classes"]; ok {
		if _, q := m["question"]; q {
			s.add(codec.BFCL, 4, join(ptr, "involved_classes"), "a BFCL multi-turn test line")
			return
		}
	}
	if fns, ok := m["functions"]; ok && !hasName && strictjson.KindOf(fns) == strictjson.Array {
		s.add(codec.OpenAI, 2, join(ptr, "functions"), "a legacy Chat Completions functions array")
		s.list(fns, join(ptr, "functions"), depth)
		return
	}
	if tools, ok := m["tools"]; ok && !hasName && !hasTitle && strictjson.KindOf(tools) == strictjson.Array {
		if _, ok := m["nextCursor"]; ok {
			s.add(codec.MCP, 1, join(ptr, "nextCursor"), "a tools/list result")
		}
		if _, ok := m["contents"]; ok {
			s.add(codec.Gemini, 1, join(ptr, "contents"), "a generateContent request")
		}
		if _, ok := m["messages"]; ok {
			if _, sys := m["system"]; sys {
				s.add(codec.Anthropic, 0.5, join(ptr, "system"), "a Messages request")
			}
		}
		if _, ok := m["input"]; ok {
			s.add(codec.OpenAIResponses, 1, join(ptr, "input"), "a Responses request")
		}
		s.list(tools, join(ptr, "tools"), depth)
		return
	}
	s.tool(v, m, ptr)
}

func (s *scorer) list(v []byte, ptr string, depth int) {
	_ = strictjson.Elements(v, func(i int, el []byte) error {
		if i >= maxSamples {
			return errStop
		}
		p := ptr + "/" + strconv.Itoa(i)
		if strictjson.KindOf(el) != strictjson.Object {
			return nil
		}
		m := members(el)
		_, hasName := m["name"]
		if !hasName {
			// A Gemini Tool object, or a BFCL test line in a list.
			if _, ok := m["functionDeclarations"]; ok {
				s.container(el, p, depth+1)
				return nil
			}
			if _, ok := m["function_declarations"]; ok {
				s.container(el, p, depth+1)
				return nil
			}
			if _, ok := m["question"]; ok {
				s.container(el, p, depth+1)
				return nil
			}
		}
		s.tool(el, m, p)
		return nil
	})
}

// errStop ends a walk early; it never leaves this package.
var errStop = errors.New("detect: enough samples")
