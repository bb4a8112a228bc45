// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package detect tells which tool-definition format a document is in, and
// dispatches to the codec of a named format: every format of the CLI.
//
// # Detection
//
// [Detect] scores every format from the document's structure: which
// members exist where ("inputSchema" is MCP; "input_schema" is Anthropic
// unless canonical-only members such as "capability" sit beside it;
// "type":"function" wrapping "function" is OpenAI Chat Completions, flat
// it is Responses; "functionDeclarations", upper-case types and
// "nullable" are Gemini; "args_schema" is LangChain; a titled schema with
// x-capabilities is a JSON Schema document; "type":"dict" and Java or
// Python type names are BFCL). It never searches the raw text. Every
// format gets a confidence; when the two best are close — a bare
// {"name", "parameters"} object is valid in four formats — the result is
// marked Ambiguous and the caller should ask for --from.
//
// # Dispatch
//
// [Decode] and [Encode] call the codec of a [codec.Format]. [DecodeAny]
// detects and decodes in one step, and settles an ambiguous document when
// every close candidate reads it the same way.
//
// # Example
//
//	r := detect.Detect(data)
//	if r.Ambiguous {
//		return fmt.Errorf("could be %s or %s; use --from", r.Scores[0].Format, r.Scores[1].Format)
//	}
//	tools, err := detect.Decode(r.Format, data)
package detect
