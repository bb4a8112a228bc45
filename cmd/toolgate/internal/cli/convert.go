// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/detect"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
)

// outputFormats are the formats convert writes, in the order --help lists.
var outputFormats = []codec.Format{
	codec.OpenAI, codec.OpenAIResponses, codec.Anthropic, codec.MCP, codec.Gemini,
	codec.LangChain, codec.JSONSchema, codec.Canonical,
}

// inputFormats adds the formats that are read but never written.
var inputFormats = append(append([]codec.Format(nil), outputFormats...), codec.BFCL)

func formatList(fs []codec.Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

func parseFormat(s string, allowed []codec.Format) (codec.Format, error) {
	for _, f := range allowed {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w: unknown format %q (want one of %s)", ErrUsage, s, formatList(allowed))
}

// lowerTarget is the schema target whose rules a format's output must meet,
// or "" for formats that carry any JSON Schema (jsonschema, canonical).
func lowerTarget(f codec.Format, strict bool) schema.Target {
	switch f {
	case codec.OpenAI, codec.OpenAIResponses, codec.LangChain:
		if strict {
			return schema.OpenAIStrict
		}
		return schema.OpenAI
	case codec.Anthropic:
		if strict {
			return schema.AnthropicStrict
		}
		return schema.Anthropic
	case codec.Gemini:
		return schema.Gemini
	case codec.MCP:
		return schema.MCP
	}
	return ""
}

// decodeFile reads tool definitions from data, in format from or, when from
// is "", in the format detection finds. A document that fits several
// formats is read when they all give the same definitions, and is otherwise
// an error that names the candidates and asks for --from.
func decodeFile(name string, data []byte, from codec.Format) (*codec.Tools, codec.Format, error) {
	if from != "" {
		tools, err := detect.Decode(from, data)
		if err != nil {
			return nil, from, locateCodec(name, data, err)
		}
		return tools, from, nil
	}
	tools, r, err := detect.DecodeAny(data)
	if ae, ok := errors.AsType[*detect.AmbiguousError](err); ok {
		return nil, "", fmt.Errorf("%w: %s: ambiguous format: %s; name one with --from", ErrUsage, name, scoreSummary(ae.Candidates, 4))
	}
	if err != nil {
		return nil, r.Format, locateCodec(name, data, err)
	}
	if r.Format == "" {
		return nil, "", fmt.Errorf("%w: %s: not in any tool definition format toolgate reads; name one with --from", ErrUsage, name)
	}
	return tools, r.Format, nil
}

// locateCodec is locate for the errors of the codecs: a *codec.Error whose
// offset is known is printed as "name:line:col: format: pointer: cause".
func locateCodec(name string, data []byte, err error) error {
	if ce, ok := errors.AsType[*codec.Error](err); ok && ce.Offset >= 0 && ce.Offset <= int64(len(data)) {
		line, col := strictjson.LineCol(data, ce.Offset)
		return fmt.Errorf("%w: %s:%d:%d: %w", ErrUsage, name, line, col, err)
	}
	return locate(name, data, err)
}

// convertResult is the --json report of convert.
type convertResult struct {
	From     codec.Format    `json:"from"`
	To       codec.Format    `json:"to"`
	Output   json.RawMessage `json:"output"`
	Warnings []toolWarning   `json:"warnings"`
}

// toolWarning is a warning about one tool of a file.
type toolWarning struct {
	Tool string `json:"tool,omitempty"`
	tool.Warning
}

func (w toolWarning) String() string {
	if w.Tool == "" {
		return w.Warning.String()
	}
	return fmt.Sprintf("tool %q: %s", w.Tool, w.Warning)
}

// convert writes tools in format to, lowering each schema and name to the
// rules of the target's provider, and, when infer is set, inferring
// capabilities for the formats that carry them (never otherwise: a member
// the input did not have is not written unless asked for). It is the
// convert command without its flags and files.
func convert(tools *codec.Tools, to codec.Format, strict, infer bool) ([]byte, []toolWarning, error) {
	var warns []toolWarning
	for _, w := range tools.Warnings {
		warns = append(warns, toolWarning{Warning: w})
	}
	target := lowerTarget(to, strict)
	names := schema.NewNameMap(target)
	out := &codec.Tools{Single: tools.Single, Defs: make([]tool.Definition, 0, len(tools.Defs)), Extensions: tools.Extensions}
	for i := range tools.Defs {
		d := tools.Defs[i]
		if infer && (to == codec.Canonical || to == codec.JSONSchema) {
			if d.Behavior == nil {
				c := tool.InferBehavior(&d)
				d.Behavior = &c
				// The input had no capability: writing one is a change.
				warns = append(warns, toolWarning{Tool: d.Name, Warning: tool.Warning{Pointer: "/capability", Code: "capability-inferred",
					Message: "capability inferred from the name and description (marked inferred); the input had none"}})
			}
		}
		switch {
		case strict && (to == codec.OpenAI || to == codec.OpenAIResponses):
			d.Extensions = d.Extensions.Clone().Set(tool.ExtOpenAIStrict, json.RawMessage("true"))
		case strict && to == codec.Anthropic:
			d.Extensions = d.Extensions.Clone().Set(anthropic.ExtStrict, json.RawMessage("true"))
		}
		if target != "" {
			lowered, ws, err := schema.LowerDefinition(toolTarget(target, &d), &d, names)
			if err != nil {
				return nil, warns, err // it names the tool
			}
			for _, w := range ws {
				warns = append(warns, toolWarning{Tool: d.Name, Warning: w})
			}
			d = lowered
		}
		out.Defs = append(out.Defs, d)
	}
	data, ws, err := detect.Encode(to, out)
	if err != nil {
		return nil, warns, err
	}
	for _, w := range ws {
		warns = append(warns, toolWarning{Warning: w})
	}
	return data, warns, nil
}

func runConvert(e *env, args []string) error {
	fs := newFlags(e, "convert", "[FILE] --to FORMAT [--from FORMAT] [--strict] [--infer-capabilities] [-o FILE] [--json]", `
Convert tool definitions to another provider's format. The input format is
detected unless --from names it. Each tool's JSON Schema and name are lowered
to what the target accepts, and every change is reported as a warning naming
a JSON Pointer: on stderr, or in the report object with --json.
One tool in gives one tool out; a list gives a JSON array.

Formats to write: `+formatList(outputFormats)+`.
Formats to read: the same, and bfcl.`)
	to := fs.String("to", "", "output `format` (required)")
	from := fs.String("from", "", "input `format` (default: detected)")
	strict := fs.Bool("strict", false, "apply the target's strict mode (OpenAI strict, Anthropic strict tool use)")
	infer := fs.Bool("infer-capabilities", false, "for canonical and jsonschema, write a capability inferred from the name and description where a tool has none")
	outPath := fs.String("o", "", "write the output to `file` instead of stdout")
	asJSON := fs.Bool("json", false, "print a JSON report {from, to, output, warnings} on stdout")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("%w: convert takes at most one FILE, got %d", ErrUsage, len(pos))
	}
	if *to == "" {
		return fmt.Errorf("%w: --to is required (one of %s)", ErrUsage, formatList(outputFormats))
	}
	toF, err := parseFormat(*to, outputFormats)
	if err != nil {
		return err
	}
	if *strict && toF != codec.OpenAI && toF != codec.OpenAIResponses && toF != codec.Anthropic {
		return fmt.Errorf("%w: --strict applies to openai, openai-responses and anthropic, not %s", ErrUsage, toF)
	}
	var fromF codec.Format
	if *from != "" {
		if fromF, err = parseFormat(*from, inputFormats); err != nil {
			return err
		}
	}
	var file string
	if len(pos) == 1 {
		file = pos[0]
	}
	data, name, err := readInput(e, file)
	if err != nil {
		return err
	}
	tools, fromF, err := decodeFile(name, data, fromF)
	if err != nil {
		return err
	}
	out, warns, err := convert(tools, toF, *strict, *infer)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUsage, name, err)
	}
	if *asJSON {
		if warns == nil {
			warns = []toolWarning{}
		}
		rep, err := marshalIndent(convertResult{From: fromF, To: toF, Output: out, Warnings: warns})
		if err != nil {
			return err
		}
		out = rep
	} else {
		for _, w := range warns {
			fmt.Fprintf(e.stderr, "%s: %s\n", name, w)
		}
		out = indent(out)
	}
	out = append(out, '\n')
	if *outPath != "" && *outPath != "-" {
		if err := os.WriteFile(*outPath, out, 0o644); err != nil {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		return nil
	}
	_, err = e.stdout.Write(out)
	return err
}

// indent pretty-prints compact JSON for people; invalid JSON is returned
// unchanged.
func indent(data []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return data
	}
	return b.Bytes()
}

// marshalIndent encodes v indented and without HTML escaping.
func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// writeJSON writes v to w as indented JSON with a final newline.
func writeJSON(w io.Writer, v any) error {
	data, err := marshalIndent(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// scoreSummary lists the n most likely formats with their confidence.
func scoreSummary(scores []detect.Score, n int) string {
	var parts []string
	for i, s := range scores {
		if i == n || s.Confidence == 0 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", s.Format, s.Confidence))
	}
	return strings.Join(parts, ", ")
}
