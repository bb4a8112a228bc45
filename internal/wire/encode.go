// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"encoding/json"
	"slices"

	"bytes"
	"strconv"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/tool"
)

// ToolWriter is how a provider codec writes its tools for [EncodeTools].
type ToolWriter struct {
	Format string              // the format's name in warnings
	Owned  func(k string) bool // the extension keys the format writes back
	Size   int                 // bytes a tool takes beyond its name, description and schema
	// OutputSchema is true when the format writes the output schema.
	OutputSchema bool
	// Check finds what the format needs beyond Validate: where in the
	// definition (a pointer suffix) and what is wrong, or "" for nothing.
	// It may be nil.
	Check func(def *tool.Definition) (where, problem string)
	Write func(out []byte, def *tool.Definition) []byte // appends one tool
}

// EncodeTools writes t as one tool (when t.Single holds a single
// definition) or an array of tools, with w. Every definition is validated
// and the names checked before anything is written; fields the format
// cannot carry are reported as warnings with the pointer of the tool in
// the output.
func EncodeTools(t *codec.Tools, w ToolWriter) ([]byte, []tool.Warning, error) {
	single := t.Single && len(t.Defs) == 1
	ptr := func(i int) string {
		if single {
			return ""
		}
		return "/" + strconv.Itoa(i)
	}
	size := 2
	for i := range t.Defs {
		def := &t.Defs[i]
		if err := def.Validate(); err != nil {
			return nil, nil, ErrAt(ptr(i), err)
		}
		if w.Check != nil {
			if where, problem := w.Check(def); problem != "" {
				return nil, nil, DefErr(ptr(i)+where, "%s", problem)
			}
		}
		size += w.Size + len(def.Name) + len(def.Description) + len(def.InputSchema) + len(def.OutputSchema)
	}
	if err := Names(t.Defs, func(i int) string { return ptr(i) + "/name" }); err != nil {
		return nil, nil, err
	}
	out := make([]byte, 0, size)
	ws := DroppedExtensions(nil, t.Extensions, "", w.Format)
	if !single {
		out = append(out, '[')
	}
	for i := range t.Defs {
		def := &t.Defs[i]
		if i > 0 {
			out = append(out, ',')
		}
		ws = Dropped(ws, def, func() string { return ptr(i) }, w.Format, w.Owned, w.OutputSchema)
		out = w.Write(out, def)
	}
	if !single {
		out = append(out, ']')
	}
	return out, ws, nil
}

// CheckStrict is a [ToolWriter] Check: OpenAI's strict flag, when the
// definition has one, must be a boolean or null.
func CheckStrict(def *tool.Definition) (where, problem string) {
	if s := def.Extensions.Get(tool.ExtOpenAIStrict); s != nil {
		switch string(bytes.TrimSpace(s)) {
		case "true", "false", "null":
		default:
			return "/extensions", tool.ExtOpenAIStrict + " is not a boolean"
		}
	}
	return "", ""
}

// EmptyDescription marks def as read with "description": "", which the
// encoders of its format write back ([tool.ExtEmptyDescription]).
func EmptyDescription(def *tool.Definition) {
	def.Extensions = def.Extensions.Set(tool.ExtEmptyDescription, json.RawMessage("true"))
}

// DroppedExtensions appends, for each key of e not among owned, in sorted
// order, a "dropped-field" warning at ptr saying format cannot carry it.
func DroppedExtensions(ws []tool.Warning, e tool.Extensions, ptr, format string, owned ...string) []tool.Warning {
	if len(e) == 0 {
		return ws
	}
	for _, k := range SortedKeys(e) {
		if !slices.Contains(owned, k) {
			ws = append(ws, tool.Warning{Pointer: Member(ptr+"/extensions", k), Code: "dropped-field",
				Message: format + " has no place for extension " + k + " and it was left out"})
		}
	}
	return ws
}

// ResultWarnings appends the warnings for what an encoder of format drops
// from the result r found at ptr: parts that native does not report
// written as themselves (they are written as their text), IsError unless
// the format has it, structured content beside content parts (a result
// with only structured content is written as its text), and the
// extensions not among owned.
func ResultWarnings(ws []tool.Warning, r *tool.Result, ptr, format string, native func(tool.Content) bool, hasIsError bool, owned ...string) []tool.Warning {
	for j, c := range r.Content {
		switch c.(type) {
		case *tool.Text, *tool.JSON:
			continue
		}
		if native == nil || !native(c) {
			ws = append(ws, tool.Warning{Pointer: Index(ptr+"/content", j), Code: "part-as-text",
				Message: format + " carries this part as text: it was replaced by its text"})
		}
	}
	if r.IsError && !hasIsError {
		ws = append(ws, tool.Warning{Pointer: ptr + "/is_error", Code: "dropped-field",
			Message: format + " has no error flag on a tool result; the result was written as a plain one"})
	}
	if len(r.StructuredContent) > 0 && len(r.Content) > 0 {
		ws = append(ws, tool.Warning{Pointer: ptr + "/structured_content", Code: "dropped-field",
			Message: format + " has no place for structured content beside the content; it was left out"})
	}
	return DroppedExtensions(ws, r.Extensions, ptr, format, owned...)
}
