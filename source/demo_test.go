// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

func newKernel(t *testing.T) *kernel.Kernel {
	t.Helper()
	src, err := NewDemo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{Limits: kernel.RateLimits{Read: -1, Write: -1, Destructive: -1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range src.Capabilities() {
		if err := k.Registry().Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

func TestTools(t *testing.T) {
	k := newKernel(t)
	var got []string
	for _, c := range k.Registry().List() {
		got = append(got, c.Definition.Name+" "+string(c.Safety))
	}
	want := []string{"createTask WRITE", "deleteTask DESTRUCTIVE", "getTask READ", "listTasks READ", "updateTask WRITE"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestCalls runs each operation through the kernel as an admin, in order,
// so that later calls see what earlier ones changed.
func TestCalls(t *testing.T) {
	k := newKernel(t)
	admin := kernel.Principal{ID: "admin", Roles: []string{"admin", "writer", "reader"}}
	const why = "testing the demo tracker end to end"
	tests := []struct {
		name    string
		tool    string
		args    string
		isError bool
		text    string
	}{
		{name: "list", tool: "listTasks", args: `{}`, text: `"title":"Rotate the staging API keys"`},
		{name: "list_done", tool: "listTasks", args: `{"status":"done"}`, text: `"id":3`},
		{name: "get", tool: "getTask", args: `{"taskId":2}`, text: `"status":"todo"`},
		{name: "get_missing", tool: "getTask", args: `{"taskId":99}`, isError: true, text: "no task 99"},
		{name: "create", tool: "createTask", args: `{"title":"Ship it"}`, text: `"id":4`},
		{name: "update", tool: "updateTask", args: `{"taskId":4,"status":"done"}`, text: `"status":"done"`},
		{name: "delete", tool: "deleteTask", args: `{"taskId":4}`},
		{name: "get_deleted", tool: "getTask", args: `{"taskId":4}`, isError: true, text: "no task 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := k.Call(context.Background(), &kernel.Request{Principal: admin, Justification: why, Call: tool.Call{Name: tt.tool, Arguments: json.RawMessage(tt.args)}})
			if err != nil {
				t.Fatal(err)
			}
			text := out.Result.Text()
			if out.Result.IsError != tt.isError || !strings.Contains(text, tt.text) {
				t.Errorf("%s: isError=%v %s; want isError=%v containing %s", out.Status, out.Result.IsError, text, tt.isError, tt.text)
			}
		})
	}
}
