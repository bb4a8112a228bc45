// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package config is the one YAML file of toolgate — server, auth,
// principals, policy, limits, audit, grants, firewall, sources — as named
// Go types, and the one place that builds the running parts from it.
//
// # The file
//
// [File] has a field per top-level key and a type per section ([Server],
// [Auth], [Policy], [Source] with one type per kind: [OpenAPI], [Command],
// [MCP], [Demo]). [Parse] reads YAML into it. Unknown keys, values of the
// wrong type and values that cannot work are errors, each an [*Error]
// naming the file, line, column and key path:
//
//	toolgate.yaml:23:15: policy.rules[1].effect: rule "big-refunds": effect "maybe" is not allow, deny or require_approval
//
// Durations are written as 30s or 1m; a command's input_schema is YAML or
// JSON and keeps its integers exact. examples/kernel/toolgate.yaml is a
// complete file; `toolgate serve --print-config` prints another.
//
// # Building
//
// [File.Build] builds the kernel (policy, limits, grants, firewall, the
// SQLite audit log), the sources with their tools registered, and the MCP
// server's config: everything `toolgate serve` and `toolgate call` run.
// Environment variables the file names are read through
// [BuildOptions.Getenv] only. A File built in Go is checked and built the
// same way, so a program can build in Go what `toolgate serve --config
// FILE` builds from a file (see the example of [File.Build]).
//
// # Example
//
//	f, err := config.Parse(data, "toolgate.yaml")
//	b, err := f.Build(ctx, &config.BuildOptions{Getenv: os.Getenv})
//	defer b.Close(ctx)
//	srv, err := mcpserver.New(b.MCP)
//	http.Handle(f.Server.Path, srv.Handler())
package config
