// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package schema resolves and validates tool JSON Schemas, lowers them to
// what each model provider accepts, maps tool names to each provider's
// rules, and checks whether a provider would accept a schema and name.
//
// Schemas stay raw JSON ([encoding/json.RawMessage]) with their key order,
// so that what toolgate writes is byte-stable: providers cache prompts by
// prefix, and re-ordered keys break the cache.
//
// # Resolution and validation
//
// [Resolve] compiles a schema once (drafts 04, 06, 07, 2019-09 and 2020-12,
// chosen by "$schema", 2020-12 by default) with
// github.com/santhosh-tekuri/jsonschema/v6. References inside the document
// resolve; a reference to anything else is refused with [ErrRemoteRef]
// unless [ResolveOptions.Loader] is set, and a $ref cycle that never
// reaches a value is an error. [Cache] compiles each distinct schema once.
// [Resolved.Validate] checks arguments that already passed strictjson and
// returns a [*ValidationError] whose messages say what was expected and
// never repeat the arguments' values, which may be secrets:
//
//	r, err := schema.Resolve(def.InputSchema, nil)
//	...
//	if err := r.Validate(args); errors.Is(err, schema.ErrInvalid) {
//		// a tool error the model can read and act on
//	}
//
// [Types] tells text tool-call parsers which JSON types a value at a path
// may take, so a string "3" can become the integer the schema wants.
//
// # Lowering
//
// [Lower] rewrites a schema for one [Target] and reports every change as a
// [tool.Warning] with a JSON Pointer and a stable code (the Code*
// constants). A schema the target accepts comes back as the same bytes.
// For the targets whose rules concern the root only (openai, anthropic,
// gemini-json, mcp) that is found by a scan of the root's members that
// allocates nothing; otherwise the schema is rewritten on an ordered tree
// and written compactly, members in their original order, new members
// appended (a root "type" goes first). The rules:
//
//   - openai, mcp, gemini-json: left alone, except that the root must be
//     "type": "object" (added when missing; another type is an error).
//     gemini-json also refuses references that leave the document.
//   - openai-strict: every object closed with "additionalProperties":
//     false; every property required, the optional ones made nullable
//     ("null" added to a plain type list; a schema with $ref, enum, const
//     or no type wrapped as {"anyOf": [s, {"type": "null"}]}, since adding
//     "null" to the type of an enum schema would still reject null);
//     oneOf becomes anyOf; allOf is merged; OpenAPI "nullable" becomes a
//     null type; keywords outside OpenAI's documented subset move into the
//     description ("(minLength: 2; maxLength: 9)") and $schema, $id and
//     other document metadata are removed. More than 5,000 properties or
//     10 levels of nesting is reported, not repaired.
//   - anthropic: root anyOf/oneOf/allOf flattened into one object schema
//     (nested at most three deep): properties merged, a property two
//     branches define differently combined with anyOf (allOf for allOf),
//     required = the intersection of the branches' for anyOf/oneOf (no
//     alternative becomes impossible) and the union for allOf.
//   - anthropic-strict: also every object closed; numeric and length
//     limits, maxItems, minItems other than 0 or 1, formats outside the
//     supported list and conditional keywords move into the description;
//     oneOf becomes anyOf.
//   - gemini ("parameters", an OpenAPI 3.0 subset): root flattened as for
//     anthropic; $ref inlined and $defs removed, a recursive reference
//     expanded [DefaultRecursionDepth] times and then cut to a stub that
//     says so; null branches and "null" types become "nullable": true;
//     several types become anyOf; oneOf becomes anyOf, allOf is merged,
//     const becomes a one-value enum; enums become strings with "type":
//     "STRING" (callers convert answers back), an enum on an array moves to
//     its items; keywords outside Gemini's Schema fields move into the
//     description (additionalProperties: false and metadata are removed);
//     types are written upper case (STRING, OBJECT, …).
//
// [LowerChecked] skips the strict-JSON check for bytes a codec already
// checked, which is most of the cost of the fast path.
//
// # Names
//
// [CheckName] applies each provider's name rule: OpenAI and Anthropic
// ^[a-zA-Z0-9_-]{1,64}$; Gemini [a-zA-Z0-9_.:-] starting with a letter or
// underscore, at most 64 (Google documents 64 and 128 in different places;
// 64 is safe everywhere); MCP 1 to 128 of [A-Za-z0-9_.-] (SEP-986). A
// [NameMap] maps names that break the rule reversibly
// ("billing.list_invoices" ↔ "billing__list_invoices") and refuses to give
// two tools one name. [LowerDefinition] does names and schemas for a whole
// [tool.Definition].
//
// # Checking
//
// [Check] says whether a provider would accept a tool's name and schema,
// as a list of [Problem]s. It is written independently of the lowering
// code, with its own decoding, traversal and rule tables, because the
// tests use it to verify lowering: every BFCL and MCP corpus schema,
// lowered for every target, passes it.
package schema
