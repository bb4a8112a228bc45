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
	// ends holds where the document's outer containers end, once Check
	// has run, so that Value skips a schema without reading it again.
	ends strictjson.Ends
	// text gathers the names and descriptions Text reads, and texts says
	// which are whose (one entry per definition of Defs), so that Strings
	// makes them strings with one allocation, not two per definition.
	text  []byte
	texts []DefText
}

// TextRef is where [Decoder.Text] put a string in the decoder's text.
type TextRef struct{ start, end int }

// DefText is where the name and description of one definition are.
type DefText struct{ Name, Description TextRef }

// Text reads the JSON string v into the decoder's text, to become a
// string when [Decoder.Strings] is called.
func (d *Decoder) Text(v []byte) (TextRef, error) {
	start := len(d.text)
	var err error
	d.text, err = strictjson.AppendUnquote(d.text, v)
	if err != nil {
		d.text = d.text[:start]
		return TextRef{}, err
	}
	return TextRef{start, len(d.text)}, nil
}

// AddDef appends def, found at loc, whose name and description [Decoder.Text]
// read to where t says. A decoder either adds every definition this way or
// none.
func (d *Decoder) AddDef(def tool.Definition, loc Loc, t DefText) {
	d.Defs = append(d.Defs, def)
	d.Locs = append(d.Locs, loc)
	d.texts = append(d.texts, t)
}

// DropDef removes the last definition added.
func (d *Decoder) DropDef() {
	d.Defs, d.Locs = d.Defs[:len(d.Defs)-1], d.Locs[:len(d.Locs)-1]
	if len(d.texts) > len(d.Defs) {
		d.texts = d.texts[:len(d.Defs)]
	}
}

// Strings sets the names and descriptions of the definitions added with
// [Decoder.AddDef], from one string holding them all.
func (d *Decoder) Strings() {
	if len(d.texts) == 0 {
		return
	}
	s := string(d.text)
	for i, t := range d.texts {
		d.Defs[i].Name = s[t.Name.start:t.Name.end]
		d.Defs[i].Description = s[t.Description.start:t.Description.end]
	}
}

// Own copies the raw JSON the definitions hold (their schemas and
// extension values) into one new buffer, so that they share no memory
// with the document, which stays the caller's. A decoder that reads the
// caller's bytes directly calls it last: it copies less than cloning the
// whole document first, whose names, descriptions and structure are read
// into strings or not kept at all.
func (d *Decoder) Own() {
	n := 0
	for i := range d.Defs {
		def := &d.Defs[i]
		n += len(def.InputSchema) + len(def.OutputSchema)
		if len(def.Extensions) == 0 {
			continue
		}
		for _, v := range def.Extensions {
			n += len(v)
		}
	}
	buf := make([]byte, 0, n)
	own := func(v []byte) []byte {
		if v == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, v...)
		return buf[start:len(buf):len(buf)] // appending to one must not reach the next
	}
	for i := range d.Defs {
		def := &d.Defs[i]
		def.InputSchema = own(def.InputSchema)
		def.OutputSchema = own(def.OutputSchema)
		if len(def.Extensions) == 0 {
			continue
		}
		for k, v := range def.Extensions {
			def.Extensions[k] = own(v)
		}
	}
}

// Check checks data as [Check] does, and records where its outer
// containers end for [Decoder.Value]. Init the decoder with data, or a
// copy of it, next.
func (d *Decoder) Check(data []byte) error {
	return strictjson.CheckEnds(data, nil, &d.ends)
}

// Init starts reading data, which the definitions may keep pointing into.
func (d *Decoder) Init(data []byte) {
	d.Data = data
	d.Locs = d.locBuf[:0]
}

// Reset empties d for reuse, as a codec's pool of decoders does: the
// definitions and warnings it read are the caller's now, and its buffers
// are kept unless a large document grew them.
func (d *Decoder) Reset() {
	d.Data, d.Defs, d.Locs, d.Warnings = nil, nil, nil, nil
	d.ends.Reset()
	if cap(d.text) > 64<<10 || cap(d.texts) > 1024 {
		d.text, d.texts = nil, nil
	}
	d.text, d.texts = d.text[:0], d.texts[:0]
}

// Value returns the raw value at offset i and the offset past it.
func (d *Decoder) Value(i int) ([]byte, int) {
	end := d.ends.SkipValue(d.Data, i)
	return d.Data[i:end], end
}

// List reads the array of tools at offset i, found at base, with one.
func (d *Decoder) List(i int, base string, one func(i int, loc Loc) (int, error)) (int, error) {
	if err := Kind(d.Data[i:], strictjson.Array, base); err != nil {
		return 0, err
	}
	if d.Defs == nil {
		// Count the tools first, which costs little once Check recorded
		// where they end, so that Defs is allocated once.
		n := 0
		_, _ = strictjson.WalkArray(d.Data, i, func(_, vs int) (int, error) {
			n++
			return d.ends.SkipValue(d.Data, vs), nil
		})
		d.Defs = make([]tool.Definition, 0, n)
	}
	return strictjson.WalkArray(d.Data, i, func(n, vs int) (int, error) { return one(vs, Loc{Base: base, I: n}) })
}

// Tools reads the whole document with one, the reader of one tool: one
// tool (which sets Single), an array of tools, or an object holding
// "tools", such as a request body; an object with a member named "model"
// or request is a request without tools. Tool names must be unique and
// not empty.
func (d *Decoder) Tools(request string, one func(i int, loc Loc) (int, error)) (*codec.Tools, error) {
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
	if err := Names(d.Defs, func(i int) string { return d.Locs[i].String() + "/name" }); err != nil {
		return nil, err
	}
	out.Defs, out.Warnings = d.Defs, d.Warnings
	if out.Defs == nil {
		out.Defs = []tool.Definition{}
	}
	return out, nil
}
