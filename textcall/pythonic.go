// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// pythonic: Llama 3.2/4, ToolACE, Olmo.
//
//	[get_weather(city='Paris', days=3), get_time()]
//	<|python_start|>[get_time(zone="UTC")]<|python_end|>
//
// The list opens the answer; Python literals become JSON (True → true,
// None → null, tuples → arrays). A list that is not calls is content.
type pythonic struct{}

func pythonicFamily() Family { return pythonic{} }

func (pythonic) Name() string { return "pythonic" }

func (pythonic) spec() *spec {
	return &spec{
		name:    "pythonic",
		aliases: []string{"llama4-pythonic", "olmo3", "toolace"},
		openers: []opener{
			{atStart: true, trigger: "[", end: endPython, eosOK: true, quiet: true, parse: pythonCalls},
			{marker: "<|python_start|>", ends: []string{"<|python_end|>"}, eosOK: true, parse: pythonCalls},
			{marker: "<function_calls>", ends: []string{"</function_calls>"}, eosOK: true, parse: pythonCalls},
		},
		drop: []string{"<|eom|>", "<|eot|>", "<|eot_id|>", "<|eom_id|>"},
	}
}

func (pythonic) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	return genericPrompt(defs, choice, "[function_name(param_name=value, other_param=value), other_function()]\nWrite values as Python literals; the list must be the whole answer.")
}

// pyLiteral writes a JSON value as the Python literal with the same value.
func pyLiteral(b []byte, v []byte) []byte {
	switch strictjson.KindOf(v) {
	case strictjson.String:
		s, _ := strictjson.Unquote(v)
		return append(b, strconv.Quote(s)...)
	case strictjson.Bool:
		if v[0] == 't' {
			return append(b, "True"...)
		}
		return append(b, "False"...)
	case strictjson.Null:
		return append(b, "None"...)
	case strictjson.Array:
		b = append(b, '[')
		_ = strictjson.Elements(v, func(i int, e []byte) error {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = pyLiteral(b, e)
			return nil
		})
		return append(b, ']')
	case strictjson.Object:
		b = append(b, '{')
		n := 0
		_ = strictjson.Members(v, func(k, e []byte) error {
			if n > 0 {
				b = append(b, ", "...)
			}
			n++
			b = append(b, strconv.Quote(string(k))...)
			b = append(b, ": "...)
			b = pyLiteral(b, e)
			return nil
		})
		return append(b, '}')
	}
	return append(b, strings.TrimSpace(string(v))...)
}

func (pythonic) FormatCalls(calls []tool.Call) string {
	if len(calls) == 0 {
		return ""
	}
	b := []byte{'['}
	for i, c := range calls {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, c.Name...)
		b = append(b, '(')
		args := []byte(argsText(c))
		if strictjson.Check(args, nil) == nil {
			n := 0
			_ = strictjson.Members(args, func(k, v []byte) error {
				if n > 0 {
					b = append(b, ", "...)
				}
				n++
				b = append(b, k...)
				b = append(b, '=')
				b = pyLiteral(b, v)
				return nil
			})
		}
		b = append(b, ')')
	}
	return string(append(b, ']'))
}

func (pythonic) FormatResults(results []tool.Result) string { return llama3{}.FormatResults(results) }
