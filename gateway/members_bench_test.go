// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// BenchmarkMemberTable measures, side by side in one run, the member
// table's own work on a request — the kind check of every member
// (checkMembers) and the per-backend decision (extraFor) — and the
// request side of the gateway that contains it (decode, adapt, lower
// and encode for a Chat backend): table=on is the whole request side,
// table=only the table's share. The share over BenchmarkGatewayChat's
// CPU per request is the table's cost.
func BenchmarkMemberTable(b *testing.B) {
	bodies := []struct {
		name string
		api  API
		body []byte
	}{
		{"chat-minimal", APIChat, []byte(`{"model":"m","stream":false,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hi."}],"max_tokens":64,"temperature":0.2}`)},
	}
	for _, f := range []struct {
		path, file string
		api        API
	}{
		{"testdata/agents_responses.txtar", "codex-first.json", APIResponses},
		{"testdata/agents.txtar", "messages-claude-code-first.json", APIMessages},
	} {
		ar, err := txtar.ParseFile(f.path)
		if err != nil {
			b.Fatal(err)
		}
		for _, file := range ar.Files {
			if file.Name == f.file {
				bodies = append(bodies, struct {
					name string
					api  API
					body []byte
				}{f.file, f.api, file.Data})
			}
		}
	}
	o := &BackendOptions{API: APIChat, Model: "m", Compat: true}
	for _, bd := range bodies {
		req, err := DecodeRequest(bd.api, bd.body, -1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bd.name+"/table=on", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuNowInternal()
			for b.Loop() {
				r, err := DecodeRequest(bd.api, bd.body, -1)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := EncodeRequest(r, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuNowInternal()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
		})
		b.Run(bd.name+"/table=only", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuNowInternal()
			for b.Loop() {
				if err := checkMembers(bd.api, req.Extra); err != nil {
					b.Fatal(err)
				}
				if _, err := extraFor(req, KindChat, true, false, &Outbound{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuNowInternal()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
		})
	}
}

// cpuNowInternal is the process's CPU time (user and system).
func cpuNowInternal() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
