// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"strconv"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// gchunk is one GenerateContentResponse as the Gemini decoder needs it,
// read with strictjson's walkers like the Chat chunk: it is the hot path
// of a Gemini backend, once per chunk of tokens. Member names are
// case-sensitive.
type gchunk struct {
	responseID, model string
	parts             []gpart // of candidate 0
	finish            string
	otherCandidate    bool
	blocked           string
	usage             *geminiUsage
	u                 geminiUsage // usage points here when present
	err               *geminiError
}

// The kinds of gpart.
const (
	gpartNone uint8 = iota // a lone thoughtSignature, or a kind yet to come
	gpartText
	gpartCall
	gpartSkip
)

type gpart struct {
	kind     uint8
	skip     string // the kind not carried, for gpartSkip
	text     string
	thought  bool
	sig      string
	id, name string
	args     []byte // raw JSON, a slice of the event's data
	// partial and more are a call streamed in pieces (Vertex's
	// streamFunctionCallArguments): its partialArgs, a raw JSON array, and
	// its willContinue.
	partial []byte
	more    bool
}

func int64At(v []byte, ptr string) (*int64, error) {
	if v[0] == 'n' {
		return nil, nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return nil, &typeError{ptr}
	}
	return &n, nil
}

// int64In is int64At for a member of the object at ptr.
func int64In(v []byte, ptr string, key []byte) (*int64, error) {
	n, err := int64At(v, "")
	if err != nil {
		return nil, &typeError{ptr + "/" + string(key)}
	}
	return n, nil
}

func kindAt(v []byte, k strictjson.Kind, ptr string) (bool, error) {
	if v[0] == 'n' {
		return false, nil
	}
	if strictjson.KindOf(v) != k {
		return false, &typeError{ptr}
	}
	return true, nil
}

// parseGeminiChunk reads data, which passed strictjson.Check, into c
// (reusing its slices).
func parseGeminiChunk(data []byte, c *gchunk) error {
	c.responseID, c.model, c.finish, c.blocked, c.otherCandidate, c.usage, c.err = "", "", "", "", false, nil, nil
	c.parts = c.parts[:0]
	if strictjson.KindOf(data) != strictjson.Object {
		return &typeError{""}
	}
	return strictjson.Members(data, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "responseId":
			c.responseID, err = str(v, "", "/responseId")
		case "modelVersion":
			c.model, err = str(v, "", "/modelVersion")
		case "candidates":
			ok, err := kindAt(v, strictjson.Array, "/candidates")
			if !ok || err != nil {
				return err
			}
			return strictjson.Elements(v, func(i int, cv []byte) error {
				if err := c.candidate(cv); err != nil {
					return at(err, "/candidates/"+strconv.Itoa(i))
				}
				return nil
			})
		case "promptFeedback":
			ok, err := kindAt(v, strictjson.Object, "/promptFeedback")
			if !ok || err != nil {
				return err
			}
			if b := strictjson.Get(v, "blockReason"); b != nil {
				c.blocked, err = str(b, "", "/promptFeedback/blockReason")
			}
			return err
		case "usageMetadata":
			ok, err := kindAt(v, strictjson.Object, "/usageMetadata")
			if !ok || err != nil {
				return err
			}
			c.u = geminiUsage{}
			c.usage = &c.u
			return strictjson.Members(v, func(key, v []byte) error {
				var err error
				const ptr = "/usageMetadata"
				switch string(key) {
				case "promptTokenCount":
					c.u.PromptTokenCount, err = int64In(v, ptr, key)
				case "candidatesTokenCount":
					c.u.CandidatesTokenCount, err = int64In(v, ptr, key)
				case "thoughtsTokenCount":
					c.u.ThoughtsTokenCount, err = int64In(v, ptr, key)
				case "cachedContentTokenCount":
					c.u.CachedContentTokenCount, err = int64In(v, ptr, key)
				case "toolUsePromptTokenCount":
					c.u.ToolUsePromptTokenCount, err = int64In(v, ptr, key)
				case "totalTokenCount":
					c.u.TotalTokenCount, err = int64In(v, ptr, key)
				}
				return err
			})
		case "error":
			ok, err := kindAt(v, strictjson.Object, "/error")
			if !ok || err != nil {
				return err
			}
			e := &geminiError{}
			if m := strictjson.Get(v, "message"); m != nil {
				if e.Message, err = str(m, "", "/error/message"); err != nil {
					return err
				}
			}
			if s := strictjson.Get(v, "status"); s != nil {
				if e.Status, err = str(s, "", "/error/status"); err != nil {
					return err
				}
			}
			if n := strictjson.Get(v, "code"); n != nil && n[0] != 'n' {
				if e.Code, err = num(n, "", "/error/code"); err != nil {
					return err
				}
			}
			c.err = e
		}
		return err
	})
}

// at prefixes the pointer of a typeError found under ptr.
func at(err error, ptr string) error {
	if te, ok := err.(*typeError); ok {
		return &typeError{ptr + te.ptr}
	}
	return err
}

// candidate reads candidate v; the pointers of its errors are relative.
func (c *gchunk) candidate(v []byte) error {
	const ptr = ""
	if v[0] != '{' {
		return &typeError{ptr}
	}
	if idx := strictjson.Get(v, "index"); idx != nil && string(idx) != "0" {
		if _, err := num(idx, ptr, "/index"); err != nil {
			return err
		}
		c.otherCandidate = true
		return nil
	}
	return strictjson.Members(v, func(key, v []byte) error {
		switch string(key) {
		case "finishReason":
			var err error
			c.finish, err = str(v, ptr, "/finishReason")
			return err
		case "content":
			ok, err := kindAt(v, strictjson.Object, ptr+"/content")
			if !ok || err != nil {
				return err
			}
			parts := strictjson.Get(v, "parts")
			if parts == nil {
				return nil
			}
			if ok, err := kindAt(parts, strictjson.Array, ptr+"/content/parts"); !ok || err != nil {
				return err
			}
			return strictjson.Elements(parts, func(i int, pv []byte) error {
				c.parts = append(c.parts, gpart{})
				if err := c.part(pv, &c.parts[len(c.parts)-1]); err != nil {
					return at(err, "/content/parts/"+strconv.Itoa(i))
				}
				return nil
			})
		}
		return nil
	})
}

// part reads part v into p; the pointers of its errors are relative.
func (c *gchunk) part(v []byte, p *gpart) error {
	const ptr = ""
	if v[0] != '{' {
		return &typeError{ptr}
	}
	return strictjson.Members(v, func(key, v []byte) error {
		var err error
		switch string(key) {
		case "text":
			if p.kind == gpartNone {
				p.kind = gpartText
			}
			p.text, err = str(v, ptr, "/text")
		case "thought":
			p.thought = string(v) == "true"
			if !p.thought && string(v) != "false" && string(v) != "null" {
				err = &typeError{ptr + "/thought"}
			}
		case "thoughtSignature":
			p.sig, err = str(v, ptr, "/thoughtSignature")
		case "functionCall":
			const fp = ptr + "/functionCall"
			ok, err := kindAt(v, strictjson.Object, fp)
			if !ok || err != nil {
				return err
			}
			p.kind = gpartCall
			return strictjson.Members(v, func(key, v []byte) error {
				var err error
				switch string(key) {
				case "id":
					p.id, err = str(v, fp, "/id")
				case "name":
					p.name, err = str(v, fp, "/name")
				case "args":
					if ok, err := kindAt(v, strictjson.Object, fp+"/args"); ok && err == nil {
						p.args = v
					} else {
						return err
					}
				case "partialArgs":
					if ok, err := kindAt(v, strictjson.Array, fp+"/partialArgs"); ok && err == nil {
						p.partial = v
					} else {
						return err
					}
				case "willContinue":
					if ok, err := kindAt(v, strictjson.Bool, fp+"/willContinue"); ok && err == nil {
						p.more = v[0] == 't'
					} else {
						return err
					}
				}
				return err
			})
		case "inlineData", "executableCode", "codeExecutionResult", "fileData":
			if v[0] != 'n' && p.kind != gpartCall {
				p.kind, p.skip = gpartSkip, string(key)
			}
		}
		return err
	})
}
