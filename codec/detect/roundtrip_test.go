// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/bfcl"
	"github.com/toolgate/toolgate/codec/gemini"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/tool"
)

// TestCorpusRoundTrips reads every BFCL definition, writes it in each
// writable format and reads it back: name, description and schemas must
// come back byte for byte, and the output must be byte-stable.
func TestCorpusRoundTrips(t *testing.T) {
	dir := corpustest.Dir(t, "bfcl")
	a, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	b, _ := filepath.Glob(filepath.Join(dir, "multi_turn_func_doc", "*.jsonl"))
	var defs []tool.Definition
	for _, f := range append(a, b...) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			ts, err := bfcl.DecodeTools(sc.Bytes())
			if err != nil {
				continue // multi-turn lines that name classes
			}
			defs = append(defs, ts.Defs...)
		}
		fh.Close()
	}
	if len(defs) < 6000 {
		t.Fatalf("read %d definitions, want the whole corpus", len(defs))
	}
	type codecPair struct {
		name string
		enc  func(*codec.Tools) ([]byte, []tool.Warning, error)
		dec  func([]byte) (*codec.Tools, error)
	}
	var pairs []codecPair
	for _, f := range Formats() {
		if f == codec.BFCL {
			continue
		}
		pairs = append(pairs, codecPair{string(f), func(t *codec.Tools) ([]byte, []tool.Warning, error) { return Encode(f, t) },
			func(d []byte) (*codec.Tools, error) { return Decode(f, d) }})
	}
	pairs = append(pairs, codecPair{"gemini-json-schema", gemini.EncodeToolsJSONSchema, gemini.DecodeTools})
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			failures := 0
			for _, d := range defs {
				in := &codec.Tools{Defs: []tool.Definition{d}, Single: true}
				out, _, err := p.enc(in)
				if err != nil {
					t.Errorf("%s: encode: %v", d.Name, err)
					failures++
				} else if back, err := p.dec(out); err != nil {
					t.Errorf("%s: decode: %v\n%s", d.Name, err, out)
					failures++
				} else {
					got := back.Defs[0]
					want := struct {
						Name, Description string
						In, Out           string
					}{d.Name, d.Description, string(d.InputSchema), string(d.OutputSchema)}
					have := struct {
						Name, Description string
						In, Out           string
					}{got.Name, got.Description, string(got.InputSchema), string(got.OutputSchema)}
					if p.name == string(codec.LangChain) || p.name == string(codec.OpenAI) || p.name == string(codec.OpenAIResponses) || p.name == string(codec.Anthropic) {
						want.Out, have.Out = "", "" // these formats have no output schema
					}
					if diff := cmp.Diff(want, have); diff != "" {
						t.Errorf("%s: round trip (-want +got):\n%s", d.Name, diff)
						failures++
					} else if again, _, _ := p.enc(back); !bytes.Equal(out, again) {
						t.Errorf("%s: not byte-stable:\n%s\n%s", d.Name, out, again)
						failures++
					}
				}
				if failures > 5 {
					t.Fatal("too many failures")
				}
			}
		})
	}
}
