// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// callIDForm is the form of the call ids the server makes.
var callIDForm = regexp.MustCompile(`^mcp_[0-9a-f]{24}$`)

// tracedSpan is what a test compares of a tools/call span: its name and
// attributes, with the call id (random) replaced by whether it is the
// audit record's.
func tracedSpan(t *testing.T, s sdktrace.ReadOnlySpan, audited string) map[string]string {
	t.Helper()
	v := map[string]string{"name": s.Name()}
	for _, kv := range s.Attributes() {
		v[string(kv.Key)] = kv.Value.String()
	}
	if id := v["gen_ai.tool.call.id"]; id != "" {
		if !callIDForm.MatchString(id) || id != audited {
			t.Errorf("span's call id %q, audit record's %q", id, audited)
		}
		v["gen_ai.tool.call.id"] = "=audit"
	}
	return v
}

// TestTraceCall checks the tools/call span of each kind of call over a
// connection without HTTP (no session id, no request id the SDK tells):
// a served tool names the span, a made-up name does not, and every call
// has a call id of its own, which its audit record has too.
func TestTraceCall(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	f := newFixture(t, func(c *fixtureConfig) {
		c.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	})
	cs := f.inMemory(t)
	ctx := context.Background()
	calls := []string{"get_note", "broken", "no_such_tool"}
	for _, name := range calls {
		cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"id": 1}})
	}
	recs := f.records(t)
	spans := rec.Ended()
	if len(recs) != len(calls) || len(spans) != len(calls) {
		t.Fatalf("%d audit records and %d spans for %d calls", len(recs), len(spans), len(calls))
	}
	var got []map[string]string
	seen := map[string]bool{}
	for i, s := range spans {
		if seen[recs[i].CallID] {
			t.Errorf("call id %q given twice", recs[i].CallID)
		}
		seen[recs[i].CallID] = true
		got = append(got, tracedSpan(t, s, recs[i].CallID))
	}
	base := func(kv ...string) map[string]string {
		m := map[string]string{"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "=audit"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	want := []map[string]string{
		base("name", "tools/call get_note", "gen_ai.tool.name", "get_note"),
		base("name", "tools/call broken", "gen_ai.tool.name", "broken", "error.type", "tool_error"),
		base("name", "tools/call", "error.type", "-32602", "rpc.response.status_code", "-32602"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools/call spans (-want +got):\n%s", diff)
	}
}

// TestTraceCallHTTP checks the session and request ids of a call over
// HTTP, and that a client cannot name the request id itself with the
// header the envelope uses.
func TestTraceCallHTTP(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	f := newFixture(t, func(c *fixtureConfig) {
		c.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	})
	hs := httptest.NewServer(f.handler())
	defer hs.Close()
	hc := &http.Client{Transport: spoof{next: bearer{token: "admin-token", next: http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": 1}}); err != nil {
		t.Fatal(err)
	}
	recs := f.records(t)
	spans := rec.Ended()
	if len(recs) != 1 || len(spans) != 1 {
		t.Fatalf("%d audit records and %d spans for one call", len(recs), len(spans))
	}
	got := tracedSpan(t, spans[0], recs[0].CallID)
	// The SDK's client numbers its requests; which number tools/call
	// gets is its business, but it is a number, not the header's.
	if id := got["jsonrpc.request.id"]; !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(id) {
		t.Errorf("jsonrpc.request.id %q, want the request's number", id)
	}
	delete(got, "jsonrpc.request.id")
	want := map[string]string{
		"name": "tools/call get_note", "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
		"gen_ai.tool.name": "get_note", "gen_ai.tool.call.id": "=audit", "mcp.session.id": cs.ID(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools/call span (-want +got):\n%s", diff)
	}
}

// spoof sends the envelope's request-id header with every request, as a
// client that wants to name its calls in the server's traces would.
type spoof struct{ next http.RoundTripper }

func (s spoof) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(rpcIDHeader, `"spoofed"`)
	return s.next.RoundTrip(r)
}

func TestRPCID(t *testing.T) {
	tests := []struct {
		name   string
		header string // the envelope's, raw JSON
		want   string
		ok     bool
	}{
		{name: "number", header: `17`, want: "17", ok: true},
		{name: "string", header: `"req-\u00e9"`, want: "req-é", ok: true},
		{name: "none", header: ``},
		{name: "null", header: `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set(rpcIDHeader, tt.header)
			}
			got, ok := rpcID(&mcp.RequestExtra{Header: h})
			if got != tt.want || ok != tt.ok {
				t.Errorf("rpcID(%q) = %q, %v; want %q, %v", tt.header, got, ok, tt.want, tt.ok)
			}
		})
	}
}
