// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package kernel runs every tool call a model makes through one pipeline:
// strict decoding, policy, a per-call signed grant, schema validation, the
// executor, an output firewall and a tamper-evident audit log. Whatever
// goes wrong comes back as a tool result the model can read and act on;
// the agent loop never breaks.
//
// # Pipeline
//
// [Kernel.Call] takes a [Request] (a [Principal], a [tool.Call], an
// optional justification) and:
//
//  1. finds the [Capability] in the [Registry] (unknown tools get a list
//     of the closest names);
//  2. decodes the arguments once with [DecodeArguments]: one JSON object,
//     no duplicate names, valid UTF-8, size and depth caps; a
//     "_justification" member is taken out;
//  3. runs the [BeforeHook]s, which may change arguments, add a
//     justification or abort;
//  4. validates the arguments against the input schema, compiled once at
//     registration (validation comes before policy so that conditions over
//     arguments see values of the declared types);
//  5. asks the [Policy] for a [Decision], then the [Limiter];
//     require-approval calls go to Config.Approve, or are denied saying
//     approval is required;
//  6. issues a [Grants] token bound to principal, tool and the SHA-256 of
//     the exact argument bytes, and verifies it just before the executor
//     runs them;
//  7. runs the [Executor] with a timeout, recovering panics;
//  8. runs the [AfterHook]s, then the [Firewall]: projection to the
//     allowed fields, secret redaction at every depth (package redact),
//     size budgets with notes saying what was cut, response modes;
//  9. appends an [AuditRecord] to the [AuditLog], arguments and result
//     redacted.
//
// # Redaction
//
// Everything that leaves the kernel goes through one redactor: results
// and the firewall's notes (whose JSON Pointers are built from masked
// names), the result's tool name and call id, the decision's reasons,
// every error message and every column of the audit record. The text
// parts of a result are masked together, so a secret split across two is
// caught. Credentials a tool source holds are masked by value: list them
// in [Capability.Secrets], or have the executor implement [SecretHolder]
// ([Command] declares its secret-named environment entries).
//
// # Limits
//
// Every limit in this package's configs follows one convention: zero
// means the DefaultX constant documented on the field, a negative value
// turns the limit off ([GrantConfig.TTL] excepted: a token that never
// expires is refused).
//
// # Policy
//
// Deny by default. Built-in rules: every call needs a known principal;
// WRITE needs the role writer or admin and a justification of at least 15
// characters; DESTRUCTIVE needs admin and a justification; PII and PCI
// need a tenant attribute and, without pii_reader, see only the allowed
// fields; SECRETS need admin or secrets_reader and a justification.
// Configured [Rule]s match tool globs, roles, attributes, safety and
// sensitivity, with CEL conditions over principal, capability, args and
// justification; a deny beats an approval, which beats an allow. Every
// [Decision] names its rule, a stable [Code] and a reason for the model;
// explain mode lists every failed condition.
//
// # Audit
//
// Each [AuditRecord] holds the hash of the one before. [AuditLog] batches
// records through one writer goroutine into an [AuditStore] (package
// kernel/audit has the SQLite store); [VerifyChain] names an edited,
// deleted, inserted, reordered or truncated record.
//
// # Example
//
//	reg := kernel.NewRegistry()
//	c, _ := kernel.Func("add", "Add two numbers", func(ctx context.Context, in struct{ A, B int }) (int, error) {
//		return in.A + in.B, nil
//	})
//	c.Safety = kernel.Read
//	reg.Add(c)
//	k, _ := kernel.New(&kernel.Config{Registry: reg})
//	out, _ := k.Call(ctx, &kernel.Request{
//		Principal: kernel.Principal{ID: "ada"},
//		Call:      tool.Call{ID: "1", Name: "add", Arguments: json.RawMessage(`{"A":2,"B":3}`)},
//	})
//	fmt.Println(out.Result.Text()) // 5
package kernel
