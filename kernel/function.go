// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// Func returns a capability that runs fn, with an input schema derived
// from In (see [SchemaFor]). The arguments, already validated, are decoded
// into In; an error from fn is the tool's failure and goes back to the
// model as a tool error. Out is returned as JSON content, or as text when
// it is a string. Set Safety, Sensitivity and the rest on the result.
func Func[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) (Capability, error) {
	s, err := SchemaFor(reflect.TypeFor[In]())
	if err != nil {
		return Capability{}, fmt.Errorf("%w: %q: %w", ErrInvalidCapability, name, err)
	}
	ex := ExecutorFunc(func(ctx context.Context, call tool.Call) (tool.Result, error) {
		var in In
		if err := json.Unmarshal(call.Arguments, &in); err != nil {
			return tool.ErrorResult(call.ID, "arguments do not fit the tool: "+err.Error()), nil
		}
		out, err := fn(ctx, in)
		if err != nil {
			return tool.ErrorResult(call.ID, err.Error()), nil
		}
		if s, ok := any(out).(string); ok {
			return tool.TextResult(call.ID, s), nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return tool.Result{}, fmt.Errorf("encoding the result: %w", err)
		}
		return tool.Result{CallID: call.ID, Content: []tool.Content{&tool.JSON{Value: b}}}, nil
	})
	return Capability{
		Definition: tool.Definition{Name: name, Description: description, InputSchema: s},
		Executor:   ex,
	}, nil
}

// SchemaFor derives a JSON Schema from a Go type as encoding/json sees
// it: struct fields by their json names in declaration order, required
// unless tagged omitempty or omitzero or a pointer (which may be null),
// no additional
// properties; a `description:"…"` tag documents a field. Interfaces and
// json.RawMessage accept any value. Channels, functions and recursive
// types are refused.
func SchemaFor(t reflect.Type) (json.RawMessage, error) {
	b, err := schemaFor(nil, t, map[reflect.Type]bool{})
	if err != nil {
		return nil, err
	}
	return b, strictjson.Check(b, nil)
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	timeType       = reflect.TypeFor[time.Time]()
)

func schemaFor(b []byte, t reflect.Type, seen map[reflect.Type]bool) ([]byte, error) {
	switch t {
	case rawMessageType:
		return append(b, "{}"...), nil
	case timeType:
		return append(b, `{"type":"string","format":"date-time"}`...), nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		b = append(b, `{"anyOf":[`...)
		b, err := schemaFor(b, t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return append(b, `,{"type":"null"}]}`...), nil
	case reflect.Bool:
		return append(b, `{"type":"boolean"}`...), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return append(b, `{"type":"integer"}`...), nil
	case reflect.Float32, reflect.Float64:
		return append(b, `{"type":"number"}`...), nil
	case reflect.String:
		return append(b, `{"type":"string"}`...), nil
	case reflect.Interface:
		return append(b, "{}"...), nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return append(b, `{"type":"string","contentEncoding":"base64"}`...), nil
		}
		b = append(b, `{"type":"array","items":`...)
		b, err := schemaFor(b, t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key type %s is not a string", t.Key())
		}
		b = append(b, `{"type":"object","additionalProperties":`...)
		b, err := schemaFor(b, t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case reflect.Struct:
		if seen[t] {
			return nil, fmt.Errorf("type %s is recursive", t)
		}
		seen[t] = true
		defer delete(seen, t)
		b = append(b, `{"type":"object","properties":{`...)
		var required []string
		n := 0
		var err error
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && opts == "" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = strictjson.AppendQuote(b, name)
			b = append(b, ':')
			mark := len(b)
			if b, err = schemaFor(b, f.Type, seen); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			if d := f.Tag.Get("description"); d != "" {
				// Insert the description before the closing brace.
				b = append(b[:len(b)-1], `,"description":`...)
				if b[mark+1] == '}' || string(b[mark:mark+2]) == "{," {
					b = append(b[:mark+1], `"description":`...)
				}
				b = strictjson.AppendQuote(b, d)
				b = append(b, '}')
			}
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") && f.Type.Kind() != reflect.Pointer {
				required = append(required, name)
			}
		}
		b = append(b, '}')
		if len(required) > 0 {
			b = append(b, `,"required":[`...)
			for i, r := range required {
				if i > 0 {
					b = append(b, ',')
				}
				b = strictjson.AppendQuote(b, r)
			}
			b = append(b, ']')
		}
		return append(b, `,"additionalProperties":false}`...), nil
	}
	return nil, fmt.Errorf("type %s cannot be expressed in JSON Schema", t)
}
