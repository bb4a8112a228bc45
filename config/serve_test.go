// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestServingNamesTheCaller: a tool call over MCP and a model request,
// each with a token, reach the one fan-out with their principal and key
// id, and the gateway's log line names them; an anonymous model request
// is refused by default, and allowed with gateway.allow_anonymous.
func TestServingNamesTheCaller(t *testing.T) {
	backend := gatewaytest.NewBackend()
	backend.Respond = func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`))}
	}
	bs := httptest.NewServer(backend)
	defer bs.Close()
	for _, allow := range []bool{false, true} {
		f := &File{
			Principals: []Principal{{ID: "anonymous", Roles: []string{"reader"}}, {ID: "agent", Roles: []string{"reader"}}},
			Auth:       Auth{Anonymous: "anonymous", Tokens: []Token{{Principal: "agent", Token: "agent-secret"}}},
			Sources:    []Source{{Name: "tasks", Demo: &Demo{}}},
			Providers:  []Provider{{Name: "local", ModelName: "m", ProviderBackend: "openai_compat", APIConfig: APIConfig{BaseURL: bs.URL + "/v1"}}},
			Gateway:    Gateway{AllowAnonymous: allow},
			Server:     Server{Addr: "127.0.0.1:0", UI: true},
		}
		var mu sync.Mutex
		var got []string
		var logs bytes.Buffer
		obs := server.ObserverFunc(func(o server.Observation) {
			mu.Lock()
			defer mu.Unlock()
			kind := "call"
			if o.Request != nil {
				kind = "request"
			}
			got = append(got, kind+" "+o.Principal+" "+o.KeyID)
		})
		ctx, stop := context.WithCancel(context.Background())
		s, err := f.BuildServing(ctx, &BuildOptions{Observers: []server.Observer{obs}, Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))})
		if err != nil {
			t.Fatal(err)
		}
		addr, err := s.Server.Listen()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		base := "http://" + addr.String()

		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerRT("agent-secret")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "listTasks", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		cs.Close()
		chat := func(tok string) int {
			req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(`{"model":"local","messages":[{"role":"user","content":"hi"}]}`))
			if tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if code := chat("agent-secret"); code != 200 {
			t.Errorf("chat with a token: %d", code)
		}
		// Credentials on the wrong route: refused in that route's shape.
		wrong := []struct {
			method, path, header, value string
			status                      int
			shape                       string
		}{
			{"POST", "/v1/chat/completions", "Cookie", server.DefaultCookieName + "=0123abcd", 401, `{"error":{"message":"this route takes a bearer token, x-api-key, x-goog-api-key, not a console session","type":"authentication_error"`},
			{"POST", "/v1/messages", "X-Api-Key", "wrong", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid API key"}}`},
			{"GET", "/ui/api/me", "X-Api-Key", "agent-secret", 401, `{"error":"this route takes a console session, not x-api-key"}`},
			{"GET", "/ui/api/me", "Authorization", "Bearer agent-secret", 401, `{"error":"this route takes a console session, not a bearer token"}`},
			{"POST", "/mcp", "Authorization", "Bearer wrong", 401, "invalid API key"},
		}
		for _, w := range wrong {
			req, _ := http.NewRequest(w.method, base+w.path, strings.NewReader(`{}`))
			req.Header.Set(w.header, w.value)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != w.status || !strings.HasPrefix(string(b), w.shape) {
				t.Errorf("%s %s with %s: %d %s, want %d %s", w.method, w.path, w.header, resp.StatusCode, b, w.status, w.shape)
			}
		}
		wantAnon := map[bool]int{false: 401, true: 200}[allow]
		if code := chat(""); code != wantAnon {
			t.Errorf("allow_anonymous %v: anonymous chat %d, want %d", allow, code, wantAnon)
		}
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		key := "agent#1" // the principal and the token's place among its tokens
		want := []string{"call agent " + key, "request agent " + key}
		if allow {
			want = append(want, "request anonymous ")
		}
		mu.Lock()
		// A whole answer reaches its client before the request is
		// observed, so the next request's observation may come first:
		// the set is what counts, not the order.
		slices.Sort(want)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("allow_anonymous %v: observations (-want +got):\n%s", allow, diff)
		}
		mu.Unlock()
		out := logs.String()
		if !strings.Contains(out, `msg="gateway request" principal=agent key=`+key) || strings.Contains(out, "agent-secret") {
			t.Errorf("log:\n%s", out)
		}
		warned := strings.Contains(out, "spending the providers' keys")
		if len(s.Notices) == 0 {
			t.Fatal("no notices")
		}
		for _, n := range s.Notices {
			warned = warned || strings.Contains(n.Text, "spending the providers' keys")
		}
		if warned != allow {
			t.Errorf("allow_anonymous %v: warned about anonymous model access: %v (%+v)", allow, warned, s.Notices)
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestPricingAndKeysChecked(t *testing.T) {
	base := func() *File {
		return &File{Providers: []Provider{{Name: "local", ModelName: "m", ProviderBackend: "openai_compat", APIConfig: APIConfig{BaseURL: "http://127.0.0.1:1/v1"}}},
			Models: map[string]string{"gpt": "local"}}
	}
	tests := []struct {
		name string
		edit func(*File)
		want string
	}{
		{name: "unknown_model", edit: func(f *File) { f.Pricing = map[string]Price{"gtp": {Input: 1}} }, want: `pricing.gtp: "gtp" is not a model or provider name`},
		{name: "negative", edit: func(f *File) { f.Pricing = map[string]Price{"gpt": {Output: -2}} }, want: "pricing.gpt.output: a price is negative"},
		{name: "keys_store", edit: func(f *File) { f.Keys.Store = "redis" }, want: `keys.store: "redis" is not sqlite, postgres or none`},
		{name: "keys_postgres", edit: func(f *File) { f.Keys.Store = "postgres" }},
		{name: "keys_postgres_db", edit: func(f *File) { f.Keys.Store, f.Keys.DB = "postgres", "keys.db" }, want: "keys.db: keys.db is for keys.store sqlite"},
		{name: "keys_sqlite_dsn", edit: func(f *File) { f.Keys.DSNEnv = "KEYS_DSN" }, want: "keys.dsn_env: keys.dsn_env is for keys.store postgres"},
		{name: "priced_provider", edit: func(f *File) { f.Pricing = map[string]Price{"local": {Input: 0.1, Output: 0.2}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base()
			tt.edit(f)
			err := f.Check()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Check: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestPrincipalBudgetChecked(t *testing.T) {
	for _, tt := range []struct {
		budget Budget
		want   string
	}{
		{Budget{USD: -1}, "principals[0].budget.usd: a budget is zero (none) or positive"},
		{Budget{USD: 5, Period: "fortnight"}, `principals[0].budget.period: "fortnight" is not a span`},
		{Budget{USD: 5, Period: "30d"}, ""},
	} {
		f := &File{Principals: []Principal{{ID: "team-a", Budget: tt.budget}}}
		err := f.Check()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want %q", tt.budget, err, tt.want)
		}
	}
}

// TestBadNumbersNameTheLine: a negative or non-numeric price, budget or
// limit is a config error naming the file and the line it is on.
func TestBadNumbersNameTheLine(t *testing.T) {
	const head = "providers:\n  - name: local\n    provider_backend: openai_compat\n    model_name: m\n    api_config: {base_url: \"http://127.0.0.1:1/v1\"}\nmodels: {gpt: local}\n"
	tests := []struct {
		name, yaml string
		line       int // of the bad value, after head's six lines
		want       string
	}{
		{"price_input_negative", "pricing:\n  gpt:\n    input: -1\n", 7 + 2, "pricing.gpt.input: a price is negative"},
		{"price_cached_input_negative", "pricing:\n  gpt:\n    cached_input: -0.5\n", 7 + 2, "pricing.gpt.cached_input: a price is negative"},
		{"price_cache_write_negative", "pricing:\n  gpt:\n    cache_write: -3\n", 7 + 2, "pricing.gpt.cache_write: a price is negative"},
		{"price_output_negative", "pricing:\n  gpt:\n    output: -2\n", 7 + 2, "pricing.gpt.output: a price is negative"},
		{"price_reasoning_negative", "pricing:\n  gpt:\n    reasoning: -4\n", 7 + 2, "pricing.gpt.reasoning: a price is negative"},
		{"price_not_a_number", "pricing:\n  gpt:\n    input: cheap\n", 7 + 2, "pricing.gpt.input"},
		{"price_not_a_number_list", "pricing:\n  gpt:\n    output: [1]\n", 7 + 2, "pricing.gpt.output"},
		{"budget_usd_negative", "principals:\n  - id: team-a\n    budget:\n      usd: -5\n", 7 + 3, "budget.usd: a budget is zero (none) or positive"},
		{"budget_tokens_negative", "principals:\n  - id: team-a\n    budget:\n      tokens: -100\n", 7 + 3, "budget.tokens: a budget is zero (none) or positive"},
		{"budget_usd_not_a_number", "principals:\n  - id: team-a\n    budget:\n      usd: lots\n", 7 + 3, "principals[0].budget.usd"},
		{"budget_tokens_not_a_number", "principals:\n  - id: team-a\n    budget:\n      tokens: many\n", 7 + 3, "principals[0].budget.tokens"},
		{"budget_tokens_fraction", "principals:\n  - id: team-a\n    budget:\n      tokens: 1.5\n", 7 + 3, "principals[0].budget.tokens"},
		{"limit_read_not_a_number", "limits:\n  read: fast\n", 7 + 1, "limits.read"},
		{"limit_write_not_a_number", "limits:\n  write: 1e400\n", 7 + 1, "limits.write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(head+tt.yaml), "gw.yaml")
			if err == nil {
				t.Fatalf("no error for:\n%s", tt.yaml)
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "gw.yaml" || ce.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q (%+v), want gw.yaml line %d and %q", err, ce, tt.line, tt.want)
			}
			if !strings.Contains(err.Error(), "gw.yaml:"+strconv.Itoa(tt.line)) {
				t.Errorf("error %q does not name gw.yaml:%d", err, tt.line)
			}
		})
	}
}

// TestCaptureContent: audit.capture_content reaches the gateway: with it
// a model record keeps the conversation, its secrets masked; without it,
// none of it.
func TestCaptureContent(t *testing.T) {
	const secret = "sk-proj-Zq3vT8wLm2Nc7Rb4Xk9Pd1Hs6Jf0Ga5Ye"
	for _, capture := range []bool{false, true} {
		t.Run("capture="+strconv.FormatBool(capture), func(t *testing.T) {
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			f := demoFile(filepath.Join(t.TempDir(), "audit.db"))
			f.Audit.CaptureContent = capture
			s, err := f.BuildServing(ctx, &BuildOptions{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			addr, err := s.Server.Listen()
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			defer func() { stop(); <-done }()
			body := `{"model":"demo","messages":[{"role":"user","content":"Hello there, my key is ` + secret + `"}]}`
			resp, err := http.Post("http://"+addr.String()+"/v1/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err := s.Built.Audit.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			var results []string
			s.Built.Store.Scan(ctx, func(r *kernel.AuditRecord) error {
				if r.Kind == kernel.RecordModel {
					results = append(results, r.Result)
				}
				return nil
			})
			if len(results) != 1 {
				t.Fatalf("model records: %q", results)
			}
			got := results[0]
			if has := strings.Contains(got, `"content":`) && strings.Contains(got, "Hello there"); has != capture {
				t.Errorf("capture_content %v, content in the record %v: %s", capture, has, got)
			}
			if strings.Contains(got, secret) {
				t.Errorf("the secret in the record: %s", got)
			}
		})
	}
}
