// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package redact finds and masks secrets in text and in JSON at every
// depth. The kernel's output firewall, the audit log and the OpenAPI
// connector run everything a tool returns, and every error message, through
// it before a model or a log sees it.
//
// # What it finds
//
// Vendor API keys (OpenAI sk-…, Anthropic sk-ant-…, GitHub ghp_… and
// github_pat_…, GitLab, AWS access key ids, Slack xox…, Google AIza…,
// Stripe, Hugging Face), bearer and basic credentials, JWTs, PEM private
// keys, passwords in URLs (scheme://user:password@host), NAME=value
// assignments whose name is a secret name (DB_PASSWORD=…), Cookie and
// Set-Cookie header values, and payment card numbers with a known issuer
// prefix and a valid Luhn digit. Extra regular expressions come from
// [Config.Patterns]; literal values, such as the credentials a tool source
// is configured with, from [Config.Values] and [Redactor.WithValues].
//
// In JSON, a member whose name is a secret name (password, secret, token,
// api_key, authorization, … and [Config.Keys]) has its whole value masked
// whatever it holds, and every string — member names too — is scanned as
// text. Strings are unescaped before scanning, so "sk-\u0061…" is caught,
// and a string that holds a JSON document is masked as JSON, however many
// times it was encoded as a string. Documents are read with the module's
// one strict JSON reader, internal/strictjson.
//
// Text that arrives in parts (the content parts of one tool result) is
// masked with [Redactor.Strings], which also finds a secret that starts in
// one part and ends in the next.
//
// # Cost
//
// Each detector anchors on a literal with strings.Index or
// strings.IndexByte, so text and documents without secrets cost a few
// vectorised passes and no allocation; [Redactor.String] and
// [Redactor.JSON] then return their input unchanged.
//
// # Example
//
//	r := redact.Default()
//	r.String("key sk-proj-…")                       // "key [REDACTED:openai-key]"
//	r.JSON(json.RawMessage(`{"password":"hunter2"}`)) // {"password":"[REDACTED]"}
package redact
