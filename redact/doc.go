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
// assignments whose name is a secret name (DB_PASSWORD=…), and payment
// card numbers with a known issuer prefix and a valid Luhn digit. Extra
// regular expressions come from [Config.Patterns].
//
// In JSON, a member whose name is a secret name (password, secret, token,
// api_key, authorization, … and [Config.Keys]) has its whole value masked
// whatever it holds, and every string — member names too — is scanned as
// text. Strings are unescaped before scanning, so "sk-\u0061…" is caught.
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
