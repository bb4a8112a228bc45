// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

func TestApprover(t *testing.T) {
	var mu sync.Mutex
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer appr-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		got = body
		mu.Unlock()
		args, _ := body["arguments"].(map[string]any)
		switch args["command"] {
		case "git push":
			w.Write([]byte(`{"approved": true}`))
		case "git push --force":
			w.Write([]byte(`{"approved": false, "reason": "no force pushes"}`))
		case "slow":
			time.Sleep(300 * time.Millisecond)
			w.Write([]byte(`{"approved": true}`))
		case "teapot":
			w.WriteHeader(http.StatusTeapot)
		default:
			w.Write([]byte(`{"approve": "yes"}`))
		}
	}))
	defer srv.Close()
	f := &File{Policy: Policy{Approver: &Approver{URL: srv.URL + "/approve", TokenEnv: "APPROVER", Timeout: 100 * time.Millisecond}}}
	if err := f.checkApprover(); err != nil {
		t.Fatal(err)
	}
	approve, err := f.approver(func(string) string { return "appr-token" })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command string
		ok      bool
		err     string
	}{
		{"git push", true, ""},
		{"git push --force", false, ""},
		{"slow", false, "did not answer within 100ms"},
		{"teapot", false, "status 418"},
		{"other", false, `not {"approved": true|false}`},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		ok, err := approve(context.Background(), &kernel.ApprovalRequest{
			Principal: kernel.Principal{ID: "dev"}, Capability: kernel.Capability{Safety: kernel.SafetyWrite},
			Call:     tool.Call{ID: "c1", Name: "Bash", Arguments: args},
			Decision: kernel.Decision{Rule: "pushes", Reason: "pushes need a person"},
		})
		if ok != tt.ok || (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: %v %v, want %v %q", tt.command, ok, err, tt.ok, tt.err)
		}
	}
	mu.Lock()
	if got["principal"] != "dev" || got["tool"] != "Bash" || got["rule"] != "pushes" || got["call_id"] != "c1" {
		t.Errorf("the approver got %v", got)
	}
	mu.Unlock()
	if _, err := f.approver(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "APPROVER is not set") {
		t.Errorf("unset token: %v", err)
	}
}

func TestApproverConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		a    Approver
		want string
	}{
		{Approver{URL: "ftp://x"}, "must be an http(s) URL"},
		{Approver{URL: "http://approvals.example.com/"}, "must be https beyond loopback"},
		{Approver{URL: "https://u:p@approvals.example.com/"}, "must not hold credentials"},
		{Approver{URL: "https://approvals.example.com/", Timeout: -1}, "policy.approver.timeout: is negative"},
	} {
		f := &File{Policy: Policy{Approver: &tt.a}}
		if err := f.checkApprover(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.a, err, tt.want)
		}
	}
}
