// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package bfcl reads the BFCL / "gorilla" dialect of tool definitions, used
// by the Berkeley Function Calling Leaderboard and by many hand-written
// catalogs, and maps it to standard JSON Schema. It is input only: there is
// no EncodeTools, and [ErrInputOnly] names the condition for callers that
// dispatch by format.
//
// # The dialect
//
// BFCL parameter schemas look like JSON Schema but are not: the root is
// "type": "dict", and types carry Java and Python names (float, double,
// long, tuple, ArrayList, HashMap, String, char, any, Boolean…), sometimes
// empty. Properties may say "optional": true (or "True", "yes"), and an
// object may list its optional properties. [DecodeTools] maps all of it as
// BFCL's own GORILLA_TO_OPENAPI table does (dict/HashMap/Hashtable → object,
// float/double → number, long/short/byte/Bigint → integer,
// tuple/ArrayList/Array/list/Queue/Stack → array, any/Any/char/String →
// string, Boolean/bool → boolean), removes empty and unknown types, drops
// optional properties from "required", and renames tuple-style "items"
// arrays to prefixItems. Each change is a [tool.Warning] with the JSON
// Pointer of the place it was made.
//
// # Containers
//
// One function, a JSON array, a BFCL test line ({"id", "question",
// "function": […]}), {"tools": […]} and JSON Lines of any of these are all
// accepted.
//
// # Speed
//
// The schema is rewritten in one pass over the checked bytes, appending to
// one buffer per call, with constant warning messages; see BENCHMARKS.md.
//
// # What it does not have
//
// The BFCL dialect is input only ([ErrInputOnly]): [DecodeTools] is the
// package's one function. BFCL test lines hold questions and functions;
// they have no response, result or tool-choice shape of their own.
//
// # Example
//
//	tools, err := bfcl.DecodeTools(line) // a line of BFCL_v4_simple_python.jsonl
//	out, warnings, err := openai.EncodeTools(tools)
package bfcl
