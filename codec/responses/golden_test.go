// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/goldentest"
	"github.com/toolgate/toolgate/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// canonical renders v as indented canonical JSON for goldens.
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "marshal: " + err.Error()
	}
	return b.String()
}

func warnings(ws []tool.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

func TestGoldenTools(t *testing.T) {
	goldentest.Want(t, "testdata/tools.txtar", *update, func(in []byte) string {
		tools, err := DecodeTools(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, ws, err := EncodeTools(tools)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("single: %v\n%s%s== encoded ==\n%s\n", tools.Single, warnings(tools.Warnings), canonical(tools.Defs), out) + warnings(ws)
	})
}

func TestGoldenResponse(t *testing.T) {
	goldentest.Want(t, "testdata/response.txtar", *update, func(in []byte) string {
		r, err := DecodeResponse(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := EncodeResponse(r)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("%s== encoded ==\n%s\n", canonical(r), out)
	})
}

func TestGoldenResults(t *testing.T) {
	goldentest.Want(t, "testdata/results.txtar", *update, func(in []byte) string {
		rs, err := DecodeResults(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := EncodeResults(rs)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("%s== encoded ==\n%s\n", canonical(rs), out)
	})
}

func TestGoldenChoice(t *testing.T) {
	goldentest.Want(t, "testdata/choice.txtar", *update, func(in []byte) string {
		c, err := DecodeChoice(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := EncodeChoice(c)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("%s== encoded ==\n%s\n", canonical(c), out)
	})
}
