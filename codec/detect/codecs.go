// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package detect

import (
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/bfcl"
	"github.com/toolgate/toolgate/codec/canonical"
	"github.com/toolgate/toolgate/codec/gemini"
	"github.com/toolgate/toolgate/codec/jsonschema"
	"github.com/toolgate/toolgate/codec/langchain"
	"github.com/toolgate/toolgate/codec/mcp"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/tool"
)

// ErrUnknownFormat reports a format name no codec reads or writes.
var ErrUnknownFormat = errors.New("detect: unknown format")

// ErrNotWritable reports a format that is read but never written (bfcl).
var ErrNotWritable = errors.New("detect: format is input only")

// Formats returns every definition format, in a fixed order.
func Formats() []codec.Format { return append([]codec.Format(nil), formats[:]...) }

// Decode reads data as format f with that format's codec.
func Decode(f codec.Format, data []byte) (*codec.Tools, error) {
	switch f {
	case codec.OpenAI:
		return openai.DecodeTools(data)
	case codec.OpenAIResponses:
		return responses.DecodeTools(data)
	case codec.Anthropic:
		return anthropic.DecodeTools(data)
	case codec.MCP:
		return mcp.DecodeTools(data)
	case codec.Gemini:
		return gemini.DecodeTools(data)
	case codec.LangChain:
		return langchain.DecodeTools(data)
	case codec.JSONSchema:
		return jsonschema.DecodeTools(data)
	case codec.Canonical:
		return canonical.DecodeTools(data)
	case codec.BFCL:
		return bfcl.DecodeTools(data)
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownFormat, f)
}

// Encode writes t as format f with that format's codec. Gemini is written
// with "parameters" ([gemini.EncodeTools]); BFCL is input only.
func Encode(f codec.Format, t *codec.Tools) ([]byte, []tool.Warning, error) {
	switch f {
	case codec.OpenAI:
		return openai.EncodeTools(t)
	case codec.OpenAIResponses:
		return responses.EncodeTools(t)
	case codec.Anthropic:
		return anthropic.EncodeTools(t)
	case codec.MCP:
		return mcp.EncodeTools(t)
	case codec.Gemini:
		return gemini.EncodeTools(t)
	case codec.LangChain:
		return langchain.EncodeTools(t)
	case codec.JSONSchema:
		return jsonschema.EncodeTools(t)
	case codec.Canonical:
		return canonical.EncodeTools(t)
	case codec.BFCL:
		return nil, nil, fmt.Errorf("%w: %q (%w)", ErrNotWritable, f, bfcl.ErrInputOnly)
	}
	return nil, nil, fmt.Errorf("%w: %q", ErrUnknownFormat, f)
}
