// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package config reads the YAML file that describes a kernel — tools and
// their executors, principals, policy rules, rate limits, firewall
// settings, grant and audit keys, the audit database — and builds it.
//
// # Format
//
// The file is the one `toolgate serve` reads, so one file drives both
// `toolgate serve` and `toolgate call`; keys only serve uses (server,
// auth) are accepted and ignored here. Unknown keys are errors, and every
// error names the file and line:
//
//	toolgate.yaml:23: rule "big-refunds": effect "maybe" is not allow, deny or require_approval
//
// Command sources become [kernel.Command] executors, with safety,
// sensitivity and allowed_fields; openapi, mcp and demo sources are kept
// as YAML for the program that serves them. examples/kernel/toolgate.yaml
// is a complete file.
//
// # Example
//
//	f, err := config.Parse(data, "toolgate.yaml")
//	b, err := f.Build(ctx, &config.Options{Getenv: os.Getenv})
//	defer b.Close(ctx)
//	out, err := b.Kernel.Call(ctx, &kernel.Request{...})
package config
