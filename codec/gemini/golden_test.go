// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"

	"github.com/toolgate/toolgate/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// report renders a decoded value, what it encodes to and the warnings.
func report(decoded any, decodeErr error, encoded []byte, warns []tool.Warning, encodeErr error) string {
	var b strings.Builder
	if decodeErr != nil {
		b.WriteString("decode error: " + decodeErr.Error() + "\n")
		return b.String()
	}
	var j bytes.Buffer
	enc := json.NewEncoder(&j)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(decoded); err != nil {
		j.WriteString("marshal: " + err.Error() + "\n")
	}
	b.WriteString("decoded:\n")
	b.Write(j.Bytes())
	if encodeErr != nil {
		b.WriteString("encode error: " + encodeErr.Error() + "\n")
		return b.String()
	}
	b.WriteString("encoded:\n")
	b.Write(encoded)
	b.WriteString("\n")
	for _, w := range warns {
		b.WriteString("warning: " + w.String() + "\n")
	}
	return b.String()
}
