// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

import (
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// JoinArray writes raw values as one JSON array.
func JoinArray(vs [][]byte) []byte {
	out := []byte{'['}
	for i, v := range vs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']')
}

// Comma appends a comma unless out ends in '[' or ',', then c.
func Comma(out []byte, c byte) []byte {
	if l := out[len(out)-1]; l != '[' && l != ',' {
		out = append(out, ',')
	}
	return append(out, c)
}

// AppendElements appends the elements of the raw JSON array arr (nil for
// none) to the array being written in out.
func AppendElements(out, arr []byte) []byte {
	if arr == nil {
		return out
	}
	_ = strictjson.Elements(arr, func(_ int, v []byte) error {
		if l := out[len(out)-1]; l != '[' && l != ',' {
			out = append(out, ',')
		}
		out = append(out, v...)
		return nil
	})
	return out
}

// IsText reports whether c is text.
func IsText(c tool.Content) bool {
	_, ok := c.(*tool.Text)
	return ok
}

// PartText renders one content part as text, as [tool.Result.Text] does.
func PartText(c tool.Content) string {
	if t, ok := c.(*tool.Text); ok {
		return t.Text
	}
	r := tool.Result{Content: []tool.Content{c}}
	return r.Text()
}
