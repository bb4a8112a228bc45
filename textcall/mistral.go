// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// mistral: Mistral and Devstral, both forms.
//
//	[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]
//	[TOOL_CALLS]get_weather{"city": "Paris"}[TOOL_CALLS]get_time{}
//	[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}
//
// Call ids are exactly nine alphanumerics, as Mistral's templates demand.
type mistral struct{}

func mistralFamily() Family { return mistral{} }

func (mistral) Name() string { return "mistral" }

func (mistral) spec() *spec {
	return &spec{
		name:    "mistral",
		aliases: []string{"devstral", "mistral-v11", "magistral"},
		openers: []opener{{marker: "[TOOL_CALLS]", end: endJSON, prefix: true, eosOK: true, parse: mistralCalls, streamArgs: true, argsHead: mistralHead}},
		drop:    []string{"</s>"},
		idStyle: IDMistral,
	}
}

func isMistralID(s string) bool {
	if len(s) != 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if indexByte(alnum, s[i]) < 0 {
			return false
		}
	}
	return true
}

// mistralHead finds the name, id and arguments of a body in the
// NAME[ARGS]{…} or NAME[CALL_ID]ID[ARGS]{…} form as it arrives, for
// StreamArguments, reading it as mistralCalls does; a body in the JSON
// form is handed to the JSON reader.
func mistralHead(body []byte) (string, string, int) {
	t := bytes.TrimLeft(body, " \t\r\n")
	off := len(body) - len(t)
	if len(t) == 0 {
		return "", "", headMore
	}
	for _, tok := range []string{"[ARGS]", "[CALL_ID]"} {
		if isPrefixOf(t, tok) {
			return "", "", headMore
		}
	}
	if t[0] == '{' || t[0] == '[' && !bytes.HasPrefix(t, []byte("[ARGS]")) && !bytes.HasPrefix(t, []byte("[CALL_ID]")) {
		return "", "", headJSON
	}
	i := bytes.IndexAny(t, "{[")
	switch {
	case i < 0:
		return "", "", headMore
	case i == 0:
		return "", "", headNot
	}
	name := strings.TrimSpace(string(t[:i]))
	if name == "" {
		return "", "", headNot
	}
	rest, id := t[i:], ""
	switch {
	case rest[0] == '{':
		return name, "", off + i
	case bytes.HasPrefix(rest, []byte("[CALL_ID]")):
		k := bytes.Index(rest, []byte("[ARGS]"))
		if k < 0 {
			return "", "", headMore
		}
		id = strings.TrimSpace(string(rest[len("[CALL_ID]"):k]))
		if !isMistralID(id) {
			id = ""
		}
		rest = rest[k:]
	}
	if !bytes.HasPrefix(rest, []byte("[ARGS]")) {
		if isPrefixOf(rest, "[ARGS]") || isPrefixOf(rest, "[CALL_ID]") {
			return "", "", headMore
		}
		return "", "", headNot
	}
	at := objectAt(rest, len("[ARGS]"))
	if at >= 0 {
		at += off + (len(t) - len(rest))
	}
	return name, id, at
}

func mistralCalls(c *callCtx, body []byte) ([]rawCall, error) {
	t := bytes.TrimSpace(body)
	var calls []rawCall
	var err error
	if len(t) > 0 && (t[0] == '[' && !bytes.HasPrefix(t, []byte("[ARGS]")) && !bytes.HasPrefix(t, []byte("[CALL_ID]")) || t[0] == '{') {
		calls, err = jsonCalls(c, body)
	} else {
		i := bytes.IndexAny(t, "{[")
		if i <= 0 {
			return nil, errNoName
		}
		head := string(t[:i])
		var id string
		if j := strings.Index(head, "[CALL_ID]"); j >= 0 {
			id = strings.TrimSpace(head[j+len("[CALL_ID]"):])
			head = head[:j]
		}
		head = strings.TrimSuffix(strings.TrimSpace(head), "[ARGS]")
		rest := t[i:]
		if bytes.HasPrefix(rest, []byte("[CALL_ID]")) || bytes.HasPrefix(rest, []byte("[ARGS]")) {
			// name[CALL_ID]id[ARGS]{…}
			rest = bytes.TrimPrefix(rest, []byte("[CALL_ID]"))
			if k := bytes.Index(rest, []byte("[ARGS]")); k >= 0 {
				if id == "" {
					id = strings.TrimSpace(string(rest[:k]))
				}
				rest = rest[k+len("[ARGS]"):]
			}
		}
		name := strings.TrimSpace(head)
		if name == "" {
			return nil, errNoName
		}
		v, cerr := checked(rest)
		if cerr != nil {
			return nil, cerr
		}
		if strictjson.KindOf(v) != strictjson.Object {
			return nil, errBadArgs
		}
		if v, cerr = argsObject(v); cerr != nil {
			return nil, cerr
		}
		calls = []rawCall{{name: name, args: v, id: id}}
	}
	for i := range calls {
		if !isMistralID(calls[i].id) {
			calls[i].id = ""
		}
	}
	return calls, err
}

func (mistral) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b []byte
	b = append(b, "[AVAILABLE_TOOLS]["...)
	for i, d := range defs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = openAITool(b, d)
	}
	b = append(b, "][/AVAILABLE_TOOLS]\n"...)
	b = append(b, "To call tools, write [TOOL_CALLS] followed by a JSON array of {\"name\": …, \"arguments\": {…}} objects.\n"...)
	b = append(b, choiceText(choice)...)
	b = append(b, '\n')
	return string(b), nil
}

func (mistral) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	b := []byte("[TOOL_CALLS][")
	for i, c := range calls {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = callJSON(b, c, "arguments")
		if c.ID != "" {
			b = b[:len(b)-1]
			b = append(b, `, "id": `...)
			b = strictjson.AppendQuote(b, c.ID)
			b = append(b, '}')
		}
	}
	return string(append(b, ']'))
}

func (mistral) FormatResults(results []tool.Result) string {
	var b []byte
	for _, r := range results {
		b = append(b, `[TOOL_RESULTS]{"content": `...)
		b = strictjson.AppendQuote(b, resultText(r))
		b = append(b, `, "call_id": `...)
		b = strictjson.AppendQuote(b, r.CallID)
		b = append(b, "}[/TOOL_RESULTS]"...)
	}
	return string(b)
}
