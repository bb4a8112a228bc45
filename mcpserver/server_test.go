// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
)

const justification = "the user asked for this change in the ticket"

type fixture struct {
	k     *kernel.Kernel
	store *kernel.MemoryAuditStore
	audit *kernel.AuditLog
	srv   *Server
	reg   *prometheus.Registry
	// auth is the server's authentication in front of Handler, as
	// toolgate serve mounts it; its refusals are counted in reg.
	auth *server.Auth
}

// fixtureConfig is the server's config and the tokens and anonymous
// principal of the authentication in front of it.
type fixtureConfig struct {
	Config
	Tokens    map[string]kernel.Principal
	Anonymous *kernel.Principal
}

// handler is the MCP handler behind the server's authentication: bearer
// tokens, and anonymous requests when the fixture has an anonymous
// principal.
func (f *fixture) handler() http.Handler {
	return f.auth.Require(f.srv.Handler(), server.RouteAuth{Accept: server.Bearer, Anonymous: true})
}

// newFixture builds a kernel with one tool of each safety class and a
// server over it.
func newFixture(t testing.TB, mutate func(*fixtureConfig)) *fixture {
	t.Helper()
	reg := kernel.NewRegistry()
	add := func(c kernel.Capability) {
		if err := reg.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	add(kernel.Capability{
		Definition: tool.Definition{
			Name:         "get_note",
			Description:  "Read a note",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"text":{"type":"string"}}}`),
		},
		Safety: kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(_ context.Context, c tool.Call) (tool.Result, error) {
			var in struct{ ID int }
			if err := json.Unmarshal(c.Arguments, &in); err != nil {
				return tool.Result{}, err
			}
			v, _ := json.Marshal(map[string]any{"id": in.ID, "text": "hello"})
			return tool.Result{Content: []tool.Content{&tool.JSON{Value: v}}}, nil
		}),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "edit_note", Description: "Change a note", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"text":{"type":"string"}},"required":["id","text"],"additionalProperties":false}`)},
		Safety:     kernel.SafetyWrite,
		Executor:   kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return tool.TextResult("", "edited"), nil }),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "drop_note", Description: "Delete a note"},
		Safety:     kernel.SafetyDestructive,
		Executor:   kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) { return tool.TextResult("", "dropped"), nil }),
	})
	add(kernel.Capability{
		Definition: tool.Definition{Name: "broken", Description: "Always fails", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Safety:     kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			return tool.Result{}, context.DeadlineExceeded
		}),
	})
	store := kernel.NewMemoryAuditStore()
	audit, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{
		Registry: reg,
		Audit:    audit,
		Principals: []kernel.Principal{
			{ID: "anonymous", Roles: []string{"reader", "writer"}},
			{ID: "admin", Roles: []string{"reader", "writer", "admin"}},
			{ID: "local", Roles: []string{"reader", "writer"}},
		},
		Limits: kernel.RateLimits{Read: -1, Write: -1, Destructive: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	mreg := prometheus.NewRegistry()
	m, err := NewMetrics(mreg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &fixtureConfig{
		Config:    Config{Kernel: k, Metrics: m},
		Tokens:    map[string]kernel.Principal{"admin-token": {ID: "admin"}},
		Anonymous: &kernel.Principal{ID: "anonymous"},
	}
	if mutate != nil {
		mutate(cfg)
	}
	srv, err := New(&cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	a, err := server.NewAuth(&server.AuthConfig{Tokens: cfg.Tokens, Anonymous: cfg.Anonymous, Registerer: mreg, Logger: cfg.Logger})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{k: k, store: store, audit: audit, srv: srv, reg: mreg, auth: a}
}

func (f *fixture) records(t *testing.T) []kernel.AuditRecord {
	t.Helper()
	if err := f.audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The record that ends each call: the outcome of a call that ran,
	// whose intent comes before it, or the one record of a call refused
	// before it ran.
	var out []kernel.AuditRecord
	open := map[string]bool{}
	for _, r := range f.store.Records() {
		switch r.Kind {
		case kernel.RecordIntent:
			open[r.CallID] = true
			continue
		case kernel.RecordOutcome:
			if !open[r.CallID] {
				t.Errorf("record %d: an outcome with no intent before it", r.Seq)
			}
			delete(open, r.CallID)
		}
		out = append(out, r)
	}
	return out
}

// inMemory connects a client to the server over the SDK's in-memory
// transport, as the Local principal.
func (f *fixture) inMemory(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// overHTTP connects a client over streamable HTTP on a loopback listener
// with the given bearer token ("" for none).
func (f *fixture) overHTTP(t *testing.T, token string) (*mcp.ClientSession, error) {
	t.Helper()
	hs := httptest.NewServer(f.handler())
	t.Cleanup(hs.Close)
	hc := hs.Client()
	if token != "" {
		hc = &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc}, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	return cs, nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func TestListTools(t *testing.T) {
	f := newFixture(t, nil)
	cs := f.inMemory(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type listed struct {
		Name        string
		ReadOnly    bool
		Destructive *bool
		Idempotent  bool
		HasJust     bool
		HasOutput   bool
	}
	var got []listed
	for _, tl := range res.Tools {
		props, _ := tl.InputSchema.(map[string]any)["properties"].(map[string]any)
		_, just := props["_justification"]
		got = append(got, listed{tl.Name, tl.Annotations.ReadOnlyHint, tl.Annotations.DestructiveHint, tl.Annotations.IdempotentHint, just, tl.OutputSchema != nil})
	}
	yes, no := true, false
	want := []listed{
		{Name: "broken", ReadOnly: true, Idempotent: true},
		{Name: "drop_note", Destructive: &yes, HasJust: true},
		{Name: "edit_note", Destructive: &no, HasJust: true},
		{Name: "get_note", ReadOnly: true, Idempotent: true, HasOutput: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestCallInMemory runs every way a call can end over the in-memory
// transport, as the local principal (a writer), and checks the result and
// the audit record of each.
func TestCallInMemory(t *testing.T) {
	f := newFixture(t, nil)
	cs := f.inMemory(t)
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		isError  bool
		text     string // substring of the result text
		status   kernel.Status
		protocol bool // a JSON-RPC error rather than a result
	}{
		{name: "read", tool: "get_note", args: map[string]any{"id": 7}, text: `"text":"hello"`, status: kernel.StatusOK},
		{name: "invalid_args", tool: "get_note", args: map[string]any{"id": "seven"}, isError: true, text: "/id", status: kernel.StatusInvalidArguments},
		{name: "write_unjustified", tool: "edit_note", args: map[string]any{"id": 1, "text": "x"}, isError: true, text: "justification", status: kernel.StatusDenied},
		{name: "write_justified", tool: "edit_note", args: map[string]any{"id": 1, "text": "x", "_justification": justification}, text: "edited", status: kernel.StatusOK},
		{name: "delete_not_admin", tool: "drop_note", args: map[string]any{"_justification": justification}, isError: true, text: "admin", status: kernel.StatusDenied},
		{name: "executor_error", tool: "broken", isError: true, status: kernel.StatusExecutorError},
		{name: "unknown_tool", tool: "get_nots", protocol: true, text: "get_note", status: kernel.StatusUnknownTool},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if tt.protocol {
				if err == nil || !strings.Contains(err.Error(), tt.text) {
					t.Fatalf("got %v, %v; want a protocol error mentioning %q", res, err, tt.text)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError != tt.isError || !strings.Contains(resultText(res), tt.text) {
					t.Errorf("got isError=%v %q; want isError=%v containing %q", res.IsError, resultText(res), tt.isError, tt.text)
				}
			}
			recs := f.records(t)
			if len(recs) != i+1 {
				t.Fatalf("%d audit records, want %d", len(recs), i+1)
			}
			r := recs[i]
			if r.Tool != tt.tool || r.Principal != "local" || r.Status != tt.status {
				t.Errorf("audit record: tool %q principal %q status %q; want %q local %q", r.Tool, r.Principal, r.Status, tt.tool, tt.status)
			}
		})
	}
	if got := counter(t, f.srv.cfg.Metrics.denials.WithLabelValues("edit_note", string(kernel.CodeJustificationRequired))); got != 1 {
		t.Errorf("denials metric = %v, want 1", got)
	}
	if got := counter(t, f.srv.cfg.Metrics.calls.WithLabelValues(unknownLabel, string(kernel.StatusUnknownTool))); got != 1 {
		t.Errorf("unknown tool calls metric = %v, want 1", got)
	}
}

func TestStructuredContent(t *testing.T) {
	f := newFixture(t, nil)
	cs := f.inMemory(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": 3}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": float64(3), "text": "hello"}
	if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
		t.Errorf("structuredContent (-want +got):\n%s", diff)
	}
}

// TestHTTPIdentity checks that the bearer token decides the principal over
// streamable HTTP: no token runs as anonymous, the admin token as admin,
// an unknown token gets 401.
func TestHTTPIdentity(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	args := map[string]any{"_justification": justification}

	anon, err := f.overHTTP(t, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := anon.CallTool(ctx, &mcp.CallToolParams{Name: "drop_note", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("anonymous delete: got %q, want a denial", resultText(res))
	}

	admin, err := f.overHTTP(t, "admin-token")
	if err != nil {
		t.Fatal(err)
	}
	res, err = admin.CallTool(ctx, &mcp.CallToolParams{Name: "drop_note", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || resultText(res) != "dropped" {
		t.Errorf("admin delete: got isError=%v %q, want dropped", res.IsError, resultText(res))
	}

	if _, err := f.overHTTP(t, "wrong-token"); err == nil {
		t.Error("a wrong token connected")
	}

	var got []string
	for _, r := range f.records(t) {
		got = append(got, r.Principal+" "+string(r.Status))
	}
	want := []string{"anonymous denied", "admin ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
}

func TestHTTPRefusals(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name    string
		anon    bool
		origins []string
		header  map[string]string
		body    string
		host    string
		want    int
	}{
		{name: "no_token_no_anonymous", body: init, want: http.StatusUnauthorized},
		{name: "bad_token", anon: true, header: map[string]string{"Authorization": "Bearer nope"}, body: init, want: http.StatusUnauthorized},
		{name: "foreign_origin", anon: true, header: map[string]string{"Origin": "https://evil.example"}, body: init, want: http.StatusForbidden},
		{name: "allowed_origin", anon: true, origins: []string{"https://app.example"}, header: map[string]string{"Origin": "https://app.example"}, body: init, want: http.StatusOK},
		{name: "same_origin", anon: true, header: map[string]string{"Origin": "http://SELF"}, body: init, want: http.StatusOK},
		{name: "rebinding_host", anon: true, host: "evil.example", body: init, want: http.StatusForbidden},
		{name: "too_large", anon: true, body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`, want: http.StatusRequestEntityTooLarge},
		{name: "ok", anon: true, body: init, want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *fixtureConfig) {
				if !tt.anon {
					c.Anonymous = nil
				}
				c.AllowedOrigins = tt.origins
			})
			hs := httptest.NewServer(f.handler())
			defer hs.Close()
			req, _ := http.NewRequest("POST", hs.URL, bytes.NewReader([]byte(tt.body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				req.Header.Set(k, strings.Replace(v, "SELF", req.Host, 1))
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

// TestShutdownWaits checks that Shutdown lets a running call finish and
// refuses calls that arrive meanwhile.
func TestShutdownWaits(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	k, err := kernel.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Registry().Add(kernel.Capability{
		Definition: tool.Definition{Name: "wait", Description: "Wait to be released"},
		Safety:     kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			close(started)
			<-release
			return tool.TextResult("", "done"), nil
		}),
	}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(&Config{Kernel: k})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{srv: srv}
	cs := f.inMemory(t)
	ctx := context.Background()
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	first := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait"})
		first <- result{res, err}
	}()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }()
	// Shutdown has begun once begin refuses; poll for it.
	for srv.begin() {
		srv.end()
	}
	if got, _ := srv.run(ctx, "wait", nil, nil); !got.IsError || !strings.Contains(resultText(got), "shutting down") {
		t.Errorf("call during shutdown: %q, want a shutting-down error", resultText(got))
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v while a call was running", err)
	default:
	}
	close(release)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	r := <-first
	if r.err != nil || resultText(r.res) != "done" {
		t.Errorf("running call: %v %v, want done", r.res, r.err)
	}
}

func TestAddProperty(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "no_properties", in: `{"type":"object"}`, want: `{"type":"object","properties":{"j":{}}}`},
		{name: "empty_properties", in: `{"properties":{},"type":"object"}`, want: `{"properties":{"j":{}},"type":"object"}`},
		{name: "keeps_order", in: `{"type":"object","properties":{"b":1,"a":2},"required":["b"]}`, want: `{"type":"object","properties":{"b":1,"a":2,"j":{}},"required":["b"]}`},
		{name: "already_there", in: `{"type":"object","properties":{"j":true}}`, want: `{"type":"object","properties":{"j":true}}`},
		{name: "escaped_key", in: `{"type":"object","properties":{"a\"b":1}}`, want: `{"type":"object","properties":{"a\"b":1,"j":{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(addProperty([]byte(tt.in), "j", []byte(`{}`)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func counter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestProtocolVersions checks that the server answers the newest revision
// it knows for a client that asks for an unknown one, and each older
// revision for a client that asks for it.
func TestProtocolVersions(t *testing.T) {
	f := newFixture(t, nil)
	hs := httptest.NewServer(f.handler())
	defer hs.Close()
	tests := []struct {
		name, asked, want string
	}{
		{name: "2024-11-05", asked: "2024-11-05", want: "2024-11-05"},
		{name: "2025-03-26", asked: "2025-03-26", want: "2025-03-26"},
		{name: "2025-06-18", asked: "2025-06-18", want: "2025-06-18"},
		{name: "2025-11-25", asked: "2025-11-25", want: "2025-11-25"},
		{name: "future", asked: "2099-01-01", want: "2025-11-25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tt.asked + `","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
			req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			want := `"protocolVersion":"` + tt.want + `"`
			if !strings.Contains(b.String(), want) {
				t.Errorf("response %s does not contain %s", b.String(), want)
			}
		})
	}
}

// TestBadAllowedOrigin checks that a malformed allowed origin (a trailing
// slash, a path) is refused by New instead of turning into silent 403s.
func TestBadAllowedOrigin(t *testing.T) {
	k, err := kernel.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"https://app.example/", "https://app.example/path", "app.example"} {
		if _, err := New(&Config{Kernel: k, AllowedOrigins: []string{o}}); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("origin %q: got %v, want ErrInvalidConfig", o, err)
		}
	}
}
