// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/goldentest"
	"github.com/toolgate/toolgate/textcall"
)

// agentBackends are the backend kinds every recorded agent request is
// written for.
var agentBackends = []struct {
	name   string
	api    API
	compat bool
	parser string
}{
	{"openai-chat", APIChat, false, ""},
	{"compat-chat", APIChat, true, ""},
	{"anthropic", APIMessages, false, ""},
	{"responses", APIResponses, false, ""},
	{"hermes-text", APIChat, true, "hermes"},
}

// agentRecordings are the archives of recorded agent requests, each
// with the front door its agent speaks; showTools prints the names of
// the tools each backend gets.
var agentRecordings = []struct {
	path      string
	api       API
	showTools bool
}{
	{"testdata/agents.txtar", APIMessages, false},           // Claude Code
	{"testdata/agents_responses.txtar", APIResponses, true}, // Codex
	{"testdata/agents_chat.txtar", APIChat, true},           // opencode
}

// TestAgentRequests runs recorded coding-agent requests through every
// backend kind and compares the members each backend gets and the
// warnings with the goldens; -update rewrites them.
func TestAgentRequests(t *testing.T) {
	for _, rec := range agentRecordings {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(rec.path, "testdata/"), ".txtar"), func(t *testing.T) {
			agentGoldens(t, rec.path, rec.api, rec.showTools)
		})
	}
}

func agentGoldens(t *testing.T, path string, api API, showTools bool) {
	goldentest.Want(t, path, *update, func(in []byte) string {
		var b strings.Builder
		req, err := DecodeRequest(api, in, -1)
		if err != nil {
			return "decode: " + err.Error()
		}
		for _, be := range agentBackends {
			fmt.Fprintf(&b, "%s:", be.name)
			r := req
			o := &BackendOptions{API: be.api, Model: "m", Compat: be.compat, Text: be.parser != ""}
			var warns []string
			if be.parser != "" {
				fam, err := textcall.Lookup(be.parser)
				if err != nil {
					t.Fatal(err)
				}
				tr, ws, err := textModelRequest(r, fam)
				if err != nil {
					fmt.Fprintf(&b, " refused %v\n", err)
					continue
				}
				r = tr
				for _, w := range ws {
					warns = append(warns, w.Pointer+" "+w.Code)
				}
			}
			out, err := EncodeRequest(r, o)
			if err != nil {
				fmt.Fprintf(&b, " refused %v\n", err)
				continue
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(out.Body, &body); err != nil {
				t.Fatalf("%s: body is not JSON: %v", be.name, err)
			}
			fmt.Fprintf(&b, " %s\n", strings.Join(extraKeys(body), " "))
			var roles []string
			var msgs []struct {
				Role string `json:"role"`
			}
			json.Unmarshal(body["messages"], &msgs)
			json.Unmarshal(body["input"], &msgs)
			for _, m := range msgs {
				roles = append(roles, m.Role)
			}
			fmt.Fprintf(&b, "  roles: %s\n", strings.Join(roles, " "))
			if showTools {
				if names := toolNames(t, out.Body, "tools"); len(names) > 0 {
					fmt.Fprintf(&b, "  tools: %s\n", strings.Join(names, " "))
				}
			}
			for _, k := range []string{"user", "metadata", "reasoning_effort", "reasoning", "thinking"} {
				if v, ok := body[k]; ok {
					fmt.Fprintf(&b, "  %s: %s\n", k, v)
				}
			}
			for _, w := range out.Warnings {
				warns = append(warns, w.Pointer+" "+w.Code)
			}
			for _, w := range warns {
				fmt.Fprintf(&b, "  warning %s\n", w)
			}
		}
		return b.String()
	})
}
