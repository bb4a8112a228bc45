// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcp

import (
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// toolFields are the Tool members with a field of their own in
// [tool.Definition]; every other member goes to Extensions.
var toolFields = [...]string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

func isToolField(k string) bool {
	for _, f := range toolFields {
		if f == k {
			return true
		}
	}
	return false
}

// DecodeTools reads MCP tool definitions: one Tool object (Single is set),
// a JSON array of them, a ListToolsResult ({"tools": […]}) or a whole
// JSON-RPC response whose result is one.
//
// Members of a Tool other than name, title, description, inputSchema,
// outputSchema and annotations (such as _meta, icons and execution) are kept
// in [tool.Definition.Extensions] under "mcp/" + their name, and annotation
// members beyond the five MCP defines under "mcp/annotations/" + their
// name, so that [EncodeTools] writes them back.
func DecodeTools(data []byte) (*codec.Tools, error) {
	v, err := decodeTools(data)
	return v, wire.Fail(codec.MCP, data, err)
}

// decodeTools is [DecodeTools] with its error not yet a *codec.Error.
func decodeTools(data []byte) (*codec.Tools, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	out := &codec.Tools{}
	if err := decodeContainer(data, "", out, 0); err != nil {
		return nil, err
	}
	seen := make(map[string]int, len(out.Defs))
	for i, d := range out.Defs {
		if j, ok := seen[d.Name]; ok {
			return nil, defErr("", "duplicate tool name (tools %d and %d, counted across the document)", j, i)
		}
		seen[d.Name] = i
	}
	return out, nil
}

func decodeContainer(v []byte, ptr string, out *codec.Tools, depth int) error {
	switch strictjson.KindOf(v) {
	case strictjson.Array:
		return decodeList(v, ptr, out)
	case strictjson.Object:
	default:
		return shapeErr(ptr, "want a tool, a list of tools or a tools/list result, got %s", strictjson.KindOf(v))
	}
	if depth == 0 && (strictjson.Get(v, "jsonrpc") != nil || strictjson.Get(v, "name") == nil && strictjson.Get(v, "result") != nil) {
		res := strictjson.Get(v, "result")
		if res == nil {
			return shapeErr(ptr, "a JSON-RPC message without a \"result\" holds no tools")
		}
		return decodeContainer(res, wire.Member(ptr, "result"), out, depth+1)
	}
	if tools := strictjson.Get(v, "tools"); tools != nil && strictjson.Get(v, "name") == nil {
		if strictjson.KindOf(tools) != strictjson.Array {
			return shapeErr(wire.Member(ptr, "tools"), "want an array of tools, got %s", strictjson.KindOf(tools))
		}
		err := strictjson.Members(v, func(k, val []byte) error {
			if string(k) != "tools" {
				// nextCursor, _meta and the rest of the result: kept for
				// writing the result back, not part of any definition.
				out.Extensions = out.Extensions.Set(ExtListPrefix+string(k), wire.Clone(val))
			}
			return nil
		})
		if err != nil {
			return err
		}
		return decodeList(tools, wire.Member(ptr, "tools"), out)
	}
	d, err := decodeTool(v, ptr)
	if err != nil {
		return err
	}
	emptyDescription(v, &d)
	out.Defs = append(out.Defs, d)
	out.Single = true
	return nil
}

// emptyDescription marks d when the tool v it was read from has
// "description": "", to write it back.
func emptyDescription(v []byte, d *tool.Definition) {
	if string(strictjson.Get(v, "description")) == `""` {
		wire.EmptyDescription(d)
	}
}

func decodeList(v []byte, ptr string, out *codec.Tools) error {
	return strictjson.Elements(v, func(i int, el []byte) error {
		d, err := decodeTool(el, wire.Index(ptr, i))
		if err != nil {
			return err
		}
		emptyDescription(el, &d)
		out.Defs = append(out.Defs, d)
		return nil
	})
}

func decodeTool(v []byte, ptr string) (tool.Definition, error) {
	var d tool.Definition
	if strictjson.KindOf(v) != strictjson.Object {
		return d, shapeErr(ptr, "want a tool object, got %s", strictjson.KindOf(v))
	}
	hasName := false
	err := strictjson.Members(v, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var err error
		switch key {
		case "name":
			hasName = true
			d.Name, err = wire.Str(val, p)
		case "title":
			d.Title, err = wire.Str(val, p)
		case "description":
			d.Description, err = wire.Str(val, p)
		case "inputSchema":
			if strictjson.KindOf(val) != strictjson.Object {
				return defErr(p, "input schema is %s, not an object", strictjson.KindOf(val))
			}
			d.InputSchema = wire.Clone(val)
		case "outputSchema":
			if strictjson.KindOf(val) != strictjson.Object {
				return defErr(p, "output schema is %s, not an object", strictjson.KindOf(val))
			}
			d.OutputSchema = wire.Clone(val)
		case "annotations":
			err = decodeAnnotations(val, p, &d)
		default:
			d.Extensions = d.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return d, err
	}
	if !hasName {
		return d, shapeErr(ptr, "a tool needs a \"name\"")
	}
	if d.Name == "" {
		return d, defErr(wire.Member(ptr, "name"), "empty name")
	}
	return d, nil
}

func decodeAnnotations(v []byte, ptr string, d *tool.Definition) error {
	if strictjson.KindOf(v) != strictjson.Object {
		return shapeErr(ptr, "want an annotations object, got %s", strictjson.KindOf(v))
	}
	a := &tool.Annotations{}
	err := strictjson.Members(v, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var dst **bool
		switch key {
		case "title":
			s, err := wire.Str(val, p)
			a.Title = s
			return err
		case "readOnlyHint":
			dst = &a.ReadOnlyHint
		case "destructiveHint":
			dst = &a.DestructiveHint
		case "idempotentHint":
			dst = &a.IdempotentHint
		case "openWorldHint":
			dst = &a.OpenWorldHint
		default:
			d.Extensions = d.Extensions.Set(extPrefix+"annotations/"+key, wire.Clone(val))
			return nil
		}
		b, err := wire.Bool(val, p)
		*dst = tool.Bool(b)
		return err
	})
	d.Annotations = a
	return err
}

// EncodeTools writes t as MCP Tool objects: one object when t.Single is
// set, otherwise a JSON array (the value of a tools/list result's "tools").
// A nil input schema is written as {"type":"object"}, which MCP requires.
// Capability, security, version and extensions of other providers have no
// place in an MCP Tool; each is reported as a warning.
func EncodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeTools(t)
	if err != nil {
		return nil, nil, wire.Fail(codec.MCP, nil, err)
	}
	return v, ws, nil
}

// ExtListPrefix starts the [codec.Tools.Extensions] keys that hold the
// members of a tools/list result beside "tools" (nextCursor, _meta, …):
// "mcp/list/nextCursor". With any of them, [EncodeTools] writes a
// tools/list result rather than an array.
const ExtListPrefix = "mcp/list/"

// encodeTools is [EncodeTools] with its error not yet a *codec.Error.
func encodeTools(t *codec.Tools) ([]byte, []tool.Warning, error) {
	var warns []tool.Warning
	var list []string
	for _, k := range wire.SortedKeys(t.Extensions) {
		if name, ok := strings.CutPrefix(k, ExtListPrefix); ok && name != "tools" && wire.ValidRaw(t.Extensions[k]) {
			list = append(list, name)
			continue
		}
		warns = wire.DroppedExtensions(warns, tool.Extensions{k: t.Extensions[k]}, "", "MCP")
	}
	if t.Single && len(t.Defs) == 1 && len(list) == 0 {
		out, err := appendTool(nil, &t.Defs[0], "", &warns)
		return out, warns, err
	}
	out := []byte{'['}
	if len(list) > 0 {
		out = []byte(`{"tools":[`)
	}
	ptr := ""
	if len(list) > 0 {
		ptr = "/tools"
	}
	for i := range t.Defs {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendTool(out, &t.Defs[i], wire.Index(ptr, i), &warns); err != nil {
			return nil, nil, err
		}
	}
	out = append(out, ']')
	if len(list) > 0 {
		first := false
		for _, name := range list {
			out = wire.AppendMember(out, &first, name, t.Extensions[ExtListPrefix+name])
		}
		out = append(out, '}')
	}
	return out, warns, nil
}

func appendTool(dst []byte, d *tool.Definition, ptr string, warns *[]tool.Warning) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	first := true
	dst = append(dst, '{')
	dst = wire.AppendString(dst, &first, "name", d.Name)
	if d.Title != "" {
		dst = wire.AppendString(dst, &first, "title", d.Title)
	}
	if d.HasDescription() {
		dst = wire.AppendString(dst, &first, "description", d.Description)
	}
	if len(d.InputSchema) > 0 {
		dst = wire.AppendMember(dst, &first, "inputSchema", d.InputSchema)
	} else {
		dst = wire.AppendMember(dst, &first, "inputSchema", []byte(`{"type":"object"}`))
	}
	if len(d.OutputSchema) > 0 {
		dst = wire.AppendMember(dst, &first, "outputSchema", d.OutputSchema)
	}
	keys := wire.SortedKeys(d.Extensions)
	var annExt []string
	for _, k := range keys {
		if strings.HasPrefix(k, extPrefix+"annotations/") {
			annExt = append(annExt, k)
		}
	}
	if a := d.Annotations; a != nil || len(annExt) > 0 {
		if a == nil {
			a = &tool.Annotations{}
		}
		dst = wire.AppendMember(dst, &first, "annotations", nil)
		afirst := true
		dst = append(dst, '{')
		if a.Title != "" {
			dst = wire.AppendString(dst, &afirst, "title", a.Title)
		}
		for _, h := range []struct {
			name string
			v    *bool
		}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}} {
			if h.v != nil {
				dst = wire.AppendBool(dst, &afirst, h.name, *h.v)
			}
		}
		for _, k := range annExt {
			name := strings.TrimPrefix(k, extPrefix+"annotations/")
			switch name {
			case "title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint":
				*warns = append(*warns, dropped(wire.Member(ptr, "extensions/"+strictjson.EscapePointer(k)), "extension "+k+", which repeats an annotation field,"))
				continue
			}
			if !wire.ValidRaw(d.Extensions[k]) {
				return nil, defErr(ptr, "extension %q is not valid JSON", k)
			}
			dst = wire.AppendMember(dst, &afirst, name, d.Extensions[k])
		}
		dst = append(dst, '}')
	}
	for _, k := range keys {
		p := ptr + "/extensions/" + strictjson.EscapePointer(k)
		if !isOwnExt(k) {
			if tool.IsSpelling(k) {
				continue // how the input was written: nothing is lost
			}
			*warns = append(*warns, dropped(p, "extension "+k))
			continue
		}
		name := strings.TrimPrefix(k, extPrefix)
		if strings.HasPrefix(name, "annotations/") {
			continue
		}
		if isToolField(name) {
			*warns = append(*warns, dropped(p, "extension "+k+", which repeats a Tool field,"))
			continue
		}
		if !wire.ValidRaw(d.Extensions[k]) {
			return nil, defErr(ptr, "extension %q is not valid JSON", k)
		}
		dst = wire.AppendMember(dst, &first, name, d.Extensions[k])
	}
	if d.Behavior != nil && !d.Behavior.Inferred { // an inferred one is recomputed, nothing is lost
		*warns = append(*warns, dropped(ptr+"/capability", "the capability"))
	}
	if d.Security != nil {
		*warns = append(*warns, dropped(ptr+"/security", "the security block"))
	}
	if d.Version != "" {
		*warns = append(*warns, dropped(ptr+"/version", "the version"))
	}
	return append(dst, '}'), nil
}
