// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"bytes"
	"errors"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// qwen3-coder: Qwen3-Coder and Qwen3.5+, XML with string values.
//
//	<tool_call>
//	<function=get_weather>
//	<parameter=city>
//	Paris
//	</parameter>
//	</function>
//	</tool_call>
//
// Values are text; they are coerced by the tool's schema. Seed-OSS prints
// the same XML inside <seed:tool_call> (its reasoning tag is seed:think).
type qwen3Coder struct{}

func qwen3CoderFamily() Family { return qwen3Coder{} }

func (qwen3Coder) Name() string { return "qwen3-coder" }

func (qwen3Coder) spec() *spec {
	return &spec{
		name:    "qwen3-coder",
		aliases: []string{"qwen3-xml", "qwen3coder", "seed-oss"},
		openers: []opener{
			{marker: "<tool_call>", ends: []string{"</tool_call>"}, next: []string{"<tool_call>"}, eosOK: true, parse: qwenCalls,
				streamArgs: true, argsXML: xmlBody},
			{marker: "<function=", ends: []string{"</function>"}, eosOK: true, parse: qwenBare,
				streamArgs: true, argsXML: xmlBare},
			// Seed-OSS prints the same XML inside its own tags.
			{marker: "<seed:tool_call>", ends: []string{"</seed:tool_call>"}, next: []string{"<seed:tool_call>"}, eosOK: true, parse: qwenCalls,
				streamArgs: true, argsXML: xmlBody},
		},
		drop: []string{"<|im_end|>", "<seed:eos>"},
	}
}

var errCut = errors.New("the output ended inside the call")

func qwenBare(c *callCtx, body []byte) ([]rawCall, error) {
	if c.cut {
		return nil, errCut
	}
	return qwenCalls(c, append(append([]byte("<function="), body...), "</function>"...))
}

// qwenCalls reads the <function=…> elements of a body.
func qwenCalls(c *callCtx, body []byte) ([]rawCall, error) {
	var calls []rawCall
	rest := body
	for {
		i := bytes.Index(rest, []byte("<function="))
		if i < 0 {
			break
		}
		rest = rest[i+len("<function="):]
		j := bytes.IndexByte(rest, '>')
		if j < 0 {
			return calls, errCut
		}
		name := strings.TrimSpace(string(rest[:j]))
		if name == "" {
			return calls, errNoName
		}
		rest = rest[j+1:]
		end := bytes.Index(rest, []byte("</function>"))
		inner := rest
		if end < 0 {
			if c.cut {
				return calls, errCut
			}
		} else {
			inner = rest[:end]
			rest = rest[end+len("</function>"):]
		}
		var a argsBuilder
		for {
			k := bytes.Index(inner, []byte("<parameter="))
			if k < 0 {
				break
			}
			inner = inner[k+len("<parameter="):]
			g := bytes.IndexByte(inner, '>')
			if g < 0 {
				return calls, errors.New("a <parameter= tag is not closed")
			}
			key := strings.TrimSpace(string(inner[:g]))
			inner = inner[g+1:]
			vend := len(inner)
			next := len(inner)
			if e := bytes.Index(inner, []byte("</parameter>")); e >= 0 {
				vend, next = e, e+len("</parameter>")
			}
			if e := bytes.Index(inner[:vend], []byte("<parameter=")); e >= 0 {
				vend, next = e, e
			}
			v := string(inner[:vend])
			v = strings.TrimPrefix(v, "\n")
			v = strings.TrimSuffix(v, "\n")
			c.stringArg(&a, name, key, v)
			inner = inner[next:]
		}
		args, err := checked(a.bytes())
		if err != nil {
			return calls, err
		}
		calls = append(calls, rawCall{name: name, args: args, warns: c.take()})
		if end < 0 {
			break
		}
	}
	if len(calls) == 0 {
		return nil, errors.New("no <function=…> element")
	}
	return calls, nil
}

func (qwen3Coder) Prompt(defs []tool.Definition, choice tool.Choice) (string, error) {
	defs, err := pickTools(defs, choice)
	if err != nil || len(defs) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Tools\n\nYou have these functions:\n\n<tools>\n")
	for _, d := range defs {
		b.WriteString("<function>\n<name>" + d.Name + "</name>\n")
		if d.Description != "" {
			b.WriteString("<description>" + strings.TrimSpace(d.Description) + "</description>\n")
		}
		b.WriteString("<parameters>\n")
		schema := schemaOf(d)
		var required []string
		if strictjson.Check(schema, nil) == nil {
			if r := strictjson.Get(schema, "required"); strictjson.KindOf(r) == strictjson.Array {
				_ = strictjson.Elements(r, func(_ int, v []byte) error {
					s, _ := strictjson.Unquote(v)
					required = append(required, s)
					return nil
				})
			}
			if props := strictjson.Get(schema, "properties"); strictjson.KindOf(props) == strictjson.Object {
				_ = strictjson.Members(props, func(k, v []byte) error {
					b.WriteString("<parameter>\n<name>" + string(k) + "</name>\n")
					if t := typeSetNames(typesOf(schema, v, 0)); t != "" {
						b.WriteString("<type>" + t + "</type>\n")
					}
					if ds := strictjson.Get(v, "description"); strictjson.KindOf(ds) == strictjson.String {
						s, _ := strictjson.Unquote(ds)
						b.WriteString("<description>" + strings.TrimSpace(s) + "</description>\n")
					}
					b.WriteString("</parameter>\n")
					return nil
				})
			}
		}
		if len(required) > 0 {
			b.WriteString("<required>" + strings.Join(required, ", ") + "</required>\n")
		}
		b.WriteString("</parameters>\n</function>\n")
	}
	b.WriteString("</tools>\n\nTo call a function, reply with nothing but this format:\n\n")
	b.WriteString("<tool_call>\n<function=function_name>\n<parameter=parameter_name>\nvalue\n</parameter>\n</function>\n</tool_call>\n\n")
	b.WriteString("Rules:\n- The function call must follow the format exactly; nested XML elements are not allowed.\n")
	b.WriteString("- Give every required parameter.\n- You may write your reasoning before a call, but not after it.\n")
	b.WriteString("- Values that are not strings (numbers, booleans, arrays, objects) are written as JSON.\n")
	b.WriteString(choiceText(choice))
	b.WriteString("\n")
	return b.String(), nil
}

// xmlValue writes a JSON argument value as a parameter's text: strings
// as they are, anything else as JSON.
func xmlValue(v []byte) string {
	if strictjson.KindOf(v) == strictjson.String {
		if s, err := strictjson.Unquote(v); err == nil {
			return s
		}
	}
	return string(v)
}

func (qwen3Coder) FormatCalls(calls []tool.Call) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("<tool_call>\n<function=" + c.Name + ">\n")
		if strictjson.Check([]byte(argsText(c)), nil) == nil {
			_ = strictjson.Members([]byte(argsText(c)), func(k, v []byte) error {
				b.WriteString("<parameter=" + string(k) + ">\n" + xmlValue(v) + "\n</parameter>\n")
				return nil
			})
		}
		b.WriteString("</function>\n</tool_call>")
	}
	return b.String()
}

func (qwen3Coder) FormatResults(results []tool.Result) string { return hermes{}.FormatResults(results) }
