// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// seeds adds every input of the named golden archives to the corpus.
func seeds(f *testing.F, archives ...string) {
	for _, a := range archives {
		ar, err := txtar.ParseFile(filepath.Join("testdata", a))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if !strings.HasSuffix(file.Name, ".want") {
				f.Add(file.Data)
			}
		}
	}
}

func FuzzDecodeTools(f *testing.F) {
	seeds(f, "tools.txtar")
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"tools":[],"functions":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, err := DecodeTools(data)
		if err != nil {
			return
		}
		out, _, err := EncodeTools(tools)
		if err != nil {
			t.Fatalf("EncodeTools after a successful decode: %v", err)
		}
		again, _, err := EncodeTools(tools)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("EncodeTools is not byte-stable:\n%s\n%s", out, again)
		}
		back, err := DecodeTools(out)
		if err != nil {
			t.Fatalf("DecodeTools(EncodeTools(x)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(tools.Defs, back.Defs); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
		if tools.Single != back.Single {
			t.Errorf("Single = %v after the round trip, want %v", back.Single, tools.Single)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	seeds(f, "response.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResponse(data)
		if err != nil {
			return
		}
		out, err := EncodeResponse(r)
		if err != nil {
			t.Fatalf("EncodeResponse after a successful decode: %v", err)
		}
		back, err := DecodeResponse(out)
		if err != nil {
			t.Fatalf("DecodeResponse(EncodeResponse(x)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(r, back); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}

func FuzzDecodeResults(f *testing.F) {
	seeds(f, "results.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := DecodeResults(data)
		if err != nil {
			return
		}
		out, err := EncodeResults(rs)
		if err != nil {
			t.Fatalf("EncodeResults after a successful decode: %v", err)
		}
		back, err := DecodeResults(out)
		if err != nil {
			t.Fatalf("DecodeResults(EncodeResults(x)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(rs, back); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}

func FuzzDecodeChoice(f *testing.F) {
	seeds(f, "choice.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeChoice(data)
		if err != nil {
			return
		}
		out, err := EncodeChoice(c)
		if err != nil {
			t.Fatalf("EncodeChoice after a successful decode: %v", err)
		}
		back, err := DecodeChoice(out)
		if err != nil {
			t.Fatalf("DecodeChoice(EncodeChoice(x)): %v\n%s", err, out)
		}
		c.DisableParallel = false // not part of tool_choice in this API
		if diff := cmp.Diff(c, back); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}
