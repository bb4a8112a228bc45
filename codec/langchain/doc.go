// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package langchain reads and writes LangChain's serialised shapes for
// tools: tool definitions, AIMessage tool calls and ToolMessage results.
//
// # Definitions
//
// [DecodeTools] accepts what LangChain produces or accepts: the
// convert_to_openai_tool shape, the convert_to_openai_function shape, a
// StructuredTool dump with "args_schema" or "schema" (a pydantic JSON
// schema, kept with its titles), "args", and a bare pydantic JSON schema
// whose title is the tool's name. [EncodeTools] writes the
// convert_to_openai_tool shape, which bind_tools takes; StructuredTool
// fields such as return_direct are kept in Extensions on the way in and
// reported on the way out, since that shape has no place for them.
//
// # Calls and results
//
// [DecodeResponse] reads an AIMessage's tool_calls (and keeps its
// invalid_tool_calls); [EncodeResponse] writes one. [DecodeResults] and
// [EncodeResults] convert ToolMessages: tool_call_id, status and artifact
// map to [tool.Result]'s CallID, IsError and StructuredContent.
//
// # What it does not have
//
// LangChain has no DecodeChoice or EncodeChoice: its tool_choice is an
// argument of bind_tools in program code, passed on to the provider, and
// has no serialized form of its own.
//
// # Example
//
//	tools, err := langchain.DecodeTools(dump) // json.dumps of convert_to_openai_tool(t)
//	out, warnings, err := anthropic.EncodeTools(tools)
package langchain
