// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"strconv"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// Loc locates a definition for error messages without building a pointer
// string for every tool: Base + "/" + I + Path.
type Loc struct {
	Base string
	I    int // -1 for a tool at the root
	Path string
}

func (l Loc) String() string {
	if l.I < 0 {
		return l.Base + l.Path
	}
	return l.Base + "/" + strconv.Itoa(l.I) + l.Path
}

// Decoder holds what a codec's tools decoder reads from one checked
// document, scanning each byte once: its methods take the offset of a
// value and return the offset just past it. A codec embeds it and adds the
// reader of one tool.
type Decoder struct {
	Data     []byte
	Defs     []tool.Definition
	Locs     []Loc // where each of Defs was found
	Warnings []tool.Warning
	locBuf   [8]Loc // backs Locs for small files
}

// Init starts reading data, which the definitions may keep pointing into.
func (d *Decoder) Init(data []byte) {
	d.Data = data
	d.Locs = d.locBuf[:0]
}

// Value returns the raw value at offset i and the offset past it.
func (d *Decoder) Value(i int) ([]byte, int) {
	end := strictjson.SkipValue(d.Data, i)
	return d.Data[i:end], end
}

// List reads the array of tools at offset i, found at base, with one.
func (d *Decoder) List(i int, base string, one func(i int, loc Loc) (int, error)) (int, error) {
	if err := Kind(d.Data[i:], strictjson.Array, base); err != nil {
		return 0, err
	}
	return strictjson.WalkArray(d.Data, i, func(n, vs int) (int, error) { return one(vs, Loc{Base: base, I: n}) })
}

// Tools reads the whole document with one, the reader of one tool: one
// tool (which sets Single), an array of tools, or an object holding
// "tools", such as a request body; an object with a member named "model"
// or request is a request without tools. Tool names must be unique and
// not empty; prefix names the codec in that error.
func (d *Decoder) Tools(prefix, request string, one func(i int, loc Loc) (int, error)) (*codec.Tools, error) {
	data := d.Data
	out := &codec.Tools{}
	i := strictjson.SkipSpace(data, 0)
	switch strictjson.KindOf(data) {
	case strictjson.Array:
		if _, err := d.List(i, "", one); err != nil {
			return nil, err
		}
	case strictjson.Object:
		found := false
		_, err := strictjson.WalkObject(data, i, func(k []byte, vs int) (int, error) {
			switch string(k) {
			case "tools":
				found = true
				return d.List(vs, "/tools", one)
			case "model", request:
				found = true // a request without tools
			}
			return -1, nil
		})
		if err != nil {
			return nil, err
		}
		if !found {
			if _, err := one(i, Loc{I: -1}); err != nil {
				return nil, err
			}
			out.Single = len(d.Defs) == 1 // not when the tool was skipped
		}
	default:
		return nil, ShapeErr("", "want a tool, an array of tools or an object holding \"tools\", got %s", strictjson.KindOf(data))
	}
	if err := Names(prefix, d.Defs, func(i int) string { return d.Locs[i].String() + "/name" }); err != nil {
		return nil, err
	}
	out.Defs, out.Warnings = d.Defs, d.Warnings
	if out.Defs == nil {
		out.Defs = []tool.Definition{}
	}
	return out, nil
}
