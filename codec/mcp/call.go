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

// ExtRequestID is the [tool.Call.Extensions] and [tool.Result.Extensions]
// key holding the raw JSON-RPC id of the request or response a call or
// result was read from, so that a numeric id stays a number.
const ExtRequestID = "mcp/jsonrpc/id"

// DecodeCall reads the params of a tools/call request ({"name",
// "arguments", "_meta", …}) or a whole JSON-RPC tools/call request.
// Missing arguments are an empty object. The JSON-RPC id, when present,
// becomes [tool.Call.ID]; _meta and any other params member are kept in
// Extensions under "mcp/" + their name.
func DecodeCall(data []byte) (*tool.Call, error) {
	v, err := decodeCall(data)
	return v, wire.Fail(codec.MCP, data, err)
}

// decodeCall is [DecodeCall] with its error not yet a *codec.Error.
func decodeCall(data []byte) (*tool.Call, error) {
	if err := wire.Check(data); err != nil {
		return nil, err
	}
	if strictjson.KindOf(data) != strictjson.Object {
		return nil, shapeErr("", "want a tools/call request or its params, got %s", strictjson.KindOf(data))
	}
	c := &tool.Call{}
	ptr := ""
	params := data
	if strictjson.Get(data, "jsonrpc") != nil || strictjson.Get(data, "method") != nil {
		if m := strictjson.Get(data, "method"); m != nil {
			if s, _ := strictjson.Unquote(m); s != "tools/call" {
				return nil, shapeErr("/method", "want method tools/call")
			}
		}
		if id := strictjson.Get(data, "id"); id != nil {
			c.ID = idText(id)
			c.Extensions = c.Extensions.Set(ExtRequestID, wire.Clone(id))
		}
		params = strictjson.Get(data, "params")
		ptr = "/params"
		if strictjson.KindOf(params) != strictjson.Object {
			return nil, shapeErr(ptr, "want a params object, got %s", strictjson.KindOf(params))
		}
	}
	hasName := false
	err := strictjson.Members(params, func(k, val []byte) error {
		key := string(k)
		p := wire.Member(ptr, key)
		var err error
		switch key {
		case "name":
			hasName = true
			c.Name, err = wire.Str(val, p)
		case "arguments":
			if strictjson.KindOf(val) != strictjson.Object {
				return shapeErr(p, "arguments must be an object, got %s", strictjson.KindOf(val))
			}
			c.Arguments = wire.Clone(val)
		default:
			c.Extensions = c.Extensions.Set(extPrefix+key, wire.Clone(val))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasName || c.Name == "" {
		return nil, shapeErr(wire.Member(ptr, "name"), "a tools/call needs a tool name")
	}
	if c.Arguments == nil {
		c.Arguments = []byte("{}")
	}
	return c, nil
}

// idText is a JSON-RPC id as text: a string's value or a number's digits.
func idText(id []byte) string {
	if strictjson.KindOf(id) == strictjson.String {
		s, _ := strictjson.Unquote(id)
		return s
	}
	return string(id)
}

// EncodeCall writes the params object of a tools/call request for c: name,
// arguments and the "mcp/" extensions (such as _meta). The call id has no
// place in params (it is the JSON-RPC request's id) and is not written.
func EncodeCall(c *tool.Call) ([]byte, []tool.Warning, error) {
	v, ws, err := encodeCall(c)
	if err != nil {
		return nil, nil, wire.Fail(codec.MCP, nil, err)
	}
	return v, ws, nil
}

// encodeCall is [EncodeCall] with its error not yet a *codec.Error.
func encodeCall(c *tool.Call) ([]byte, []tool.Warning, error) {
	var warns []tool.Warning
	if c.Name == "" {
		return nil, nil, shapeErr("/name", "a tools/call needs a tool name")
	}
	args := c.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	if strictjson.KindOf(args) != strictjson.Object || !wire.ValidRaw(args) {
		return nil, nil, shapeErr("/arguments", "arguments must be a JSON object")
	}
	first := true
	dst := []byte{'{'}
	dst = wire.AppendString(dst, &first, "name", c.Name)
	dst = wire.AppendMember(dst, &first, "arguments", args)
	for _, k := range wire.SortedKeys(c.Extensions) {
		p := "/extensions/" + strictjson.EscapePointer(k)
		name := strings.TrimPrefix(k, extPrefix)
		switch {
		case k == ExtRequestID:
			continue
		case !isOwnExt(k), name == "name", name == "arguments":
			warns = append(warns, dropped(p, "extension "+k))
			continue
		}
		if !wire.ValidRaw(c.Extensions[k]) {
			return nil, nil, shapeErr(p, "extension %q is not valid JSON", k)
		}
		dst = wire.AppendMember(dst, &first, name, c.Extensions[k])
	}
	return append(dst, '}'), warns, nil
}
