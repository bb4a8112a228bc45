// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/tool"
)

// echoed is what the pet store's echo handler saw of a request.
type echoed struct {
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	Query       string            `json:"query,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Cookie      string            `json:"cookie,omitempty"`
	ContentType string            `json:"content_type,omitempty"`
	Body        string            `json:"body,omitempty"`
	Parts       []part            `json:"parts,omitempty"`
}

type part struct {
	Name        string `json:"name"`
	Filename    string `json:"filename,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Data        string `json:"data"`
}

// store is an in-process pet store: it echoes requests and misbehaves on
// demand, on the paths under /api/v1/echo/.
type store struct {
	srv         *httptest.Server
	tokens      atomic.Int32 // OAuth2 tokens issued
	flaky       atomic.Int32 // failures left for /echo/flaky
	requests    atomic.Int32 // requests to /echo/flaky and /notes
	clientID    string
	secret      string
	tokenExpiry int
	retryAfter  string      // the Retry-After /echo/flaky sends; set before a test's calls
	postOnly    atomic.Bool // the token endpoint takes client credentials in the form only
	elsewhere   string      // where /echo/elsewhere redirects; set before a test's calls
}

// echoHeaders are the request headers the echo reports.
var echoHeaders = []string{"Accept", "Authorization", "Trace", "X-Ids", "X-Api-Key", "User-Agent"}

func newStore(t *testing.T) *store {
	t.Helper()
	s := &store{clientID: "client-1", secret: "s3cret-client", tokenExpiry: 60}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if s.postOnly.Load() {
			id, secret, ok = r.FormValue("client_id"), r.FormValue("client_secret"), r.Header.Get("Authorization") == ""
		}
		if !ok || id != s.clientID || secret != s.secret || r.FormValue("grant_type") != "client_credentials" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		n := s.tokens.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"tok-%d-%s","token_type":"Bearer","expires_in":%d}`, n, r.FormValue("scope"), s.tokenExpiry)
	})
	mux.HandleFunc("/api/v1/echo/{what}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("what") {
		case "redirect":
			http.Redirect(w, r, "/api/v1/echo/landed", http.StatusFound)
			return
		case "loop":
			http.Redirect(w, r, "/api/v1/echo/loop", http.StatusFound)
			return
		case "metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		case "outside-base":
			http.Redirect(w, r, "/outside", http.StatusFound)
			return
		case "elsewhere":
			http.Redirect(w, r, s.elsewhere, http.StatusFound)
			return
		case "zeros":
			w.Write(make([]byte, 3000)) // no Content-Type: sniffed, never escaped
			return
		case "zeros-text":
			w.Header().Set("Content-Type", "text/plain")
			w.Write(make([]byte, 3000))
			return
		case "other-loopback":
			http.Redirect(w, r, "http://127.0.0.2:"+strings.Split(r.Host, ":")[1]+"/", http.StatusFound)
			return
		case "slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		case "flaky":
			s.requests.Add(1)
			if s.flaky.Add(-1) >= 0 {
				if s.retryAfter != "" {
					w.Header().Set("Retry-After", s.retryAfter)
				}
				http.Error(w, "try later", http.StatusServiceUnavailable)
				return
			}
		case "big":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(strings.Repeat("0123456789", 500)))
			return
		case "binary":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
			return
		case "text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte("plain words"))
			return
		case "array":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`[1,2,3]`))
			return
		case "missing":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":"no such pet","you_sent":%q}`, r.Header.Get("Authorization"))
			return
		}
		s.echo(w, r)
	})
	mux.HandleFunc("POST /api/v1/notes", func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/", s.echo)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *store) echo(w http.ResponseWriter, r *http.Request) {
	e := echoed{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Cookie: r.Header.Get("Cookie"), ContentType: r.Header.Get("Content-Type")}
	for _, h := range echoHeaders {
		if v := r.Header.Get(h); v != "" {
			if e.Headers == nil {
				e.Headers = map[string]string{}
			}
			e.Headers[h] = v
		}
	}
	mt, params, _ := mime.ParseMediaType(e.ContentType)
	if mt == "multipart/form-data" {
		e.ContentType = mt
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			data, _ := io.ReadAll(p)
			e.Parts = append(e.Parts, part{Name: p.FormName(), Filename: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: string(data)})
		}
	} else {
		b, _ := io.ReadAll(r.Body)
		e.Body = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(e)
}

// load loads the test pet store spec, pointed at the store.
func (s *store) load(t *testing.T, cfg *Config) *API {
	t.Helper()
	data, err := os.ReadFile("testdata/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(s.srv.URL, "http://")
	api, err := Load(context.Background(), []byte(strings.ReplaceAll(string(data), "HOST", host)), "", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// executor returns an executor for api allowed to reach the loopback
// test server, with cfg's other settings.
func executor(t *testing.T, api *API, cfg ExecConfig) *Executor {
	t.Helper()
	cfg.AllowPrefixes = append(cfg.AllowPrefixes, netip.MustParsePrefix("127.0.0.1/32"))
	x, err := NewExecutor(api, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func call(t *testing.T, x *Executor, ctx context.Context, name, args string) tool.Result {
	t.Helper()
	res, err := x.Execute(ctx, tool.Call{ID: "c1", Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.CallID != "c1" || res.Name != name {
		t.Errorf("result for %q/%q, want c1/%s", res.CallID, res.Name, name)
	}
	return res
}

func echoOf(t *testing.T, res tool.Result) echoed {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", res.Text())
	}
	var e echoed
	if err := json.Unmarshal(res.StructuredContent, &e); err != nil {
		t.Fatalf("no echo in %s: %v", res.Text(), err)
	}
	delete(e.Headers, "User-Agent")
	return e
}

func TestExecuteParameters(t *testing.T) {
	s := newStore(t)
	x := executor(t, s.load(t, nil), ExecConfig{Credentials: &Credentials{BearerToken: "bearer-token-1"}})
	auth := map[string]string{"Authorization": "Bearer [REDACTED]"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name string
		tool string
		args string
		want echoed
	}{
		{
			name: "path-query-header-cookie",
			tool: "getPet",
			args: `{"petId":"a/b c","trace":7,"fields":["id","name"],"tag":["x","y z"],"session":"s;1","petId_query":"q"}`,
			want: echoed{Method: "GET", Path: "/api/v1/pets/a%2Fb%20c", Query: "fields=id,name&tag=x&tag=y%20z&petId=q",
				Headers: with(auth, "Accept", "application/json", "Trace", "7"), Cookie: "session=s%3B1"},
		},
		{
			name: "every-occurrence-replaced",
			tool: "twin",
			args: `{"id":"x?y"}`,
			want: echoed{Method: "GET", Path: "/api/v1/twins/x%3Fy/and/x%3Fy", Headers: with(auth, "Accept", "application/json, */*;q=0.5")},
		},
		{
			name: "dot-segment-encoded",
			tool: "twin",
			args: `{"id":".."}`,
			want: echoed{Method: "GET", Path: "/api/v1/twins/%2E%2E/and/%2E%2E", Headers: with(auth, "Accept", "application/json, */*;q=0.5")},
		},
		{
			name: "styles",
			tool: "pathStyles",
			args: `{"label":["a","b"],"matrix":[1,2],"exploded":{"k":"v","n":"1"},"space":["a","b"],"pipe":["a","b"],` +
				`"filter":{"state":"open","owner":{"id":1}},"point":{"x":1,"y":2},"reserved":"a/b?c","json":{"a":1},"X-Ids":[1,2],"filter_state":"s"}`,
			want: echoed{Method: "GET", Path: "/api/v1/styles/.a,b/;matrix=1,2/;k=v;n=1",
				Query:   "space=a%20b&pipe=a%7Cb&filter%5Bstate%5D=open&filter%5Bowner%5D%5Bid%5D=1&point=x,1,y,2&reserved=a/b?c&json=%7B%22a%22%3A1%7D&filter%5Bstate%5D=s",
				Headers: with(auth, "Accept", "application/json, */*;q=0.5", "X-Ids", "1,2")},
		},
		{
			name: "json-body",
			tool: "createPet",
			args: `{"name":"Rex","tag":null,"parent":{"name":"Mom"}}`,
			want: echoed{Method: "POST", Path: "/api/v1/pets", Headers: with(auth, "Accept", "application/json"),
				ContentType: "application/json", Body: `{"name":"Rex","tag":null,"parent":{"name":"Mom"}}`},
		},
		{
			name: "json-body-strict-nulls",
			tool: "createPet",
			args: `{"name":"Rex","tag":null,"parent":{"name":"Mom","tag":null,"parent":null}}`, // parent is not nullable: left out
			want: echoed{Method: "POST", Path: "/api/v1/pets", Headers: with(auth, "Accept", "application/json"),
				ContentType: "application/json", Body: `{"name":"Rex","tag":null,"parent":{"name":"Mom","tag":null}}`},
		},
		{
			name: "form-body",
			tool: "putPet",
			args: `{"name":"Rex Jr","tags":["a","b"],"owner":{"name":"Ann"}}`,
			want: echoed{Method: "PUT", Path: "/api/v1/pets", Headers: with(auth, "Accept", "application/json, */*;q=0.5"),
				ContentType: "application/x-www-form-urlencoded", Body: "name=Rex%20Jr&tags=a&tags=b&owner%5Bname%5D=Ann"},
		},
		{
			name: "multipart-data-uri",
			tool: "uploadPhoto",
			args: `{"petId":"1","file":"data:text/plain;base64,aGk=","caption":"hi","meta":{"a":1}}`,
			want: echoed{Method: "POST", Path: "/api/v1/pets/1/photo", Headers: with(auth, "Accept", "application/json, */*;q=0.5"),
				ContentType: "multipart/form-data", Parts: []part{
					{Name: "file", Filename: "file", ContentType: "text/plain", Data: "hi"},
					{Name: "caption", Data: "hi"},
					{Name: "meta", ContentType: "application/json", Data: `{"a":1}`},
				}},
		},
		{
			name: "multipart-base64",
			tool: "uploadPhoto",
			args: `{"petId":"2","file":"aGVsbG8"}`,
			want: echoed{Method: "POST", Path: "/api/v1/pets/2/photo", Headers: with(auth, "Accept", "application/json, */*;q=0.5"),
				ContentType: "multipart/form-data", Parts: []part{{Name: "file", Filename: "file", ContentType: "application/octet-stream", Data: "hello"}}},
		},
		{
			name: "octet-stream",
			tool: "putRaw",
			args: `{"petId":"1","body":"aGVsbG8="}`,
			want: echoed{Method: "PUT", Path: "/api/v1/pets/1/raw", Headers: with(auth, "Accept", "application/json, */*;q=0.5"),
				ContentType: "application/octet-stream", Body: "hello"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := echoOf(t, call(t, x, context.Background(), tt.tool, tt.args))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExecuteServerVariables(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	x := executor(t, api, ExecConfig{ServerVariables: map[string]string{"version": "v2"}, Credentials: &Credentials{BearerToken: "t0ken"}})
	if got := echoOf(t, call(t, x, context.Background(), "twin", `{"id":"1"}`)).Path; got != "/api/v2/twins/1/and/1" {
		t.Errorf("path %s, want the v2 base path", got)
	}
	// A value outside the variable's enum falls back to the default.
	x = executor(t, api, ExecConfig{ServerVariables: map[string]string{"version": "../admin"}})
	if got := echoOf(t, call(t, x, context.Background(), "twin", `{"id":"1"}`)).Path; got != "/api/v1/twins/1/and/1" {
		t.Errorf("path %s, want the default base path", got)
	}
}

func TestExecuteArguments(t *testing.T) {
	s := newStore(t)
	x := executor(t, s.load(t, nil), ExecConfig{})
	tests := []struct {
		name, tool, args, want string
	}{
		{"unknown-argument", "getPet", `{"petId":"1","color":"red"}`, `unknown argument "color"`},
		{"missing-path", "getPet", `{}`, `missing required argument "petId"`},
		{"missing-body", "createPet", `{}`, ""},
		{"not-object", "getPet", `[1]`, "not a JSON object"},
		{"duplicate-name", "getPet", `{"petId":"1","petId":"2"}`, "duplicate name"},
		{"bad-file", "uploadPhoto", `{"petId":"1","file":"%%%"}`, "neither base64 nor a data: URI"},
		{"header-injection", "getPet", `{"petId":"1","trace":"1\r\nX-Evil: 1"}`, "control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, x, context.Background(), tt.tool, tt.args)
			if tt.want == "" {
				return // the API decides; toolgate must not refuse
			}
			if !res.IsError || !strings.Contains(res.Text(), tt.want) {
				t.Errorf("result %q (error %v), want an error containing %q", res.Text(), res.IsError, tt.want)
			}
		})
	}
	if _, err := x.Execute(context.Background(), tool.Call{Name: "nope"}); !errors.Is(err, ErrUnknownOperation) {
		t.Errorf("unknown tool: err %v, want ErrUnknownOperation", err)
	}
}

func TestExecuteAuth(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	creds := &Credentials{BearerToken: "bearer-abc", APIKey: "key-123456", Username: "ann", Password: "pw-9876",
		ClientID: s.clientID, ClientSecret: s.secret}
	x := executor(t, api, ExecConfig{Credentials: creds})
	ctx := context.Background()
	tests := []struct {
		name string
		tool string
		// check reads what arrived; the echo is masked, so the test
		// compares with the server's view before masking via its shape.
		want echoed
	}{
		{"bearer", "listPets", echoed{Method: "GET", Path: "/api/v1/list", Headers: map[string]string{"Accept": "application/json", "Authorization": "Bearer [REDACTED]"}}},
		{"api-key-header", "keyHeader", echoed{Method: "GET", Path: "/api/v1/auth/key-header", Headers: map[string]string{"Accept": "application/json, */*;q=0.5", "X-Api-Key": "[REDACTED]"}}},
		{"api-key-query", "keyQuery", echoed{Method: "GET", Path: "/api/v1/auth/key-query", Query: "api_key=[REDACTED]", Headers: map[string]string{"Accept": "application/json, */*;q=0.5"}}},
		{"api-key-cookie", "keyCookie", echoed{Method: "GET", Path: "/api/v1/auth/key-cookie", Cookie: "key=[REDACTED]", Headers: map[string]string{"Accept": "application/json, */*;q=0.5"}}},
		{"basic", "basic", echoed{Method: "GET", Path: "/api/v1/auth/basic", Headers: map[string]string{"Accept": "application/json, */*;q=0.5", "Authorization": "Basic [REDACTED]"}}},
		{"oauth2", "oauth", echoed{Method: "GET", Path: "/api/v1/auth/oauth", Headers: map[string]string{"Accept": "application/json, */*;q=0.5", "Authorization": "Bearer [REDACTED]"}}},
		{"anonymous", "anonymous", echoed{Method: "GET", Path: "/api/v1/auth/none", Headers: map[string]string{"Accept": "application/json, */*;q=0.5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, x, ctx, tt.tool, `{}`)
			for _, secret := range []string{"bearer-abc", "key-123456", "pw-9876", "YW5uOnB3LTk4NzY=", "tok-"} {
				if strings.Contains(res.Text(), secret) || strings.Contains(string(res.StructuredContent), secret) {
					t.Errorf("result holds the credential %q: %s", secret, res.Text())
				}
			}
			if diff := cmp.Diff(tt.want, echoOf(t, res)); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
	if n := s.tokens.Load(); n != 1 {
		t.Errorf("%d tokens fetched, want 1", n)
	}
	// The token is reused until it nears expiry, then fetched again.
	call(t, x, ctx, "oauth", `{}`)
	if n := s.tokens.Load(); n != 1 {
		t.Errorf("%d tokens fetched after a second call, want 1 (cached)", n)
	}
	start := time.Now()
	x.now = func() time.Time { return start.Add(45 * time.Second) } // 15 s left of 60: refresh
	call(t, x, ctx, "oauth", `{}`)
	if n := s.tokens.Load(); n != 2 {
		t.Errorf("%d tokens fetched near expiry, want 2", n)
	}
	// Calls arriving together share one fetch.
	x.now = func() time.Time { return start.Add(time.Hour) }
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { call(t, x, ctx, "oauth", `{}`) })
	}
	wg.Wait()
	if n := s.tokens.Load(); n != 3 {
		t.Errorf("%d tokens fetched after 8 concurrent calls on an expired token, want 3", n)
	}
	// A server that refuses client_secret_basic gets client_secret_post.
	s.postOnly.Store(true)
	defer s.postOnly.Store(false)
	post := executor(t, api, ExecConfig{Credentials: creds})
	if res := call(t, post, ctx, "oauth", `{}`); res.IsError {
		t.Errorf("client_secret_post: %s", res.Text())
	}
	if n := s.tokens.Load(); n != 4 {
		t.Errorf("%d tokens fetched, want 4", n)
	}
	// A wrong client secret is an error that does not echo the secret.
	bad := executor(t, api, ExecConfig{Credentials: &Credentials{ClientID: s.clientID, ClientSecret: "wrong-secret-value"}})
	_, err := bad.Execute(ctx, tool.Call{Name: "oauth", Arguments: json.RawMessage(`{}`)})
	if !errors.Is(err, ErrAuth) && (err == nil || !strings.Contains(err.Error(), "token endpoint")) {
		t.Errorf("bad client: err %v, want an auth error", err)
	}
	if err != nil && strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("error echoes the secret: %v", err)
	}
}

func TestExecutePerCallCredentials(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	x := executor(t, api, ExecConfig{SourceID: "pets", Credentials: &Credentials{BearerToken: "default-token"}})
	var mu sync.Mutex
	seen := map[string]string{}
	// The server sees each caller's own token; the result masks it.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Query().Get("tag")] = r.Header.Get("Authorization")
		mu.Unlock()
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	x = executor(t, api, ExecConfig{SourceID: "pets", Server: srv.URL, AllowOtherServers: true, Credentials: &Credentials{BearerToken: "default-token"}})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ctx := context.Background()
			if i%2 == 0 {
				ctx = WithCredentials(ctx, "pets", Credentials{BearerToken: "caller-" + strconv.Itoa(i)})
			} else {
				ctx = WithCredentials(ctx, "other-source", Credentials{BearerToken: "not-for-pets"})
			}
			call(t, x, ctx, "getPet", fmt.Sprintf(`{"petId":"1","tag":["%d"]}`, i))
		})
	}
	wg.Wait()
	for i := range 8 {
		want := "Bearer default-token"
		if i%2 == 0 {
			want = "Bearer caller-" + strconv.Itoa(i)
		}
		if got := seen[strconv.Itoa(i)]; got != want {
			t.Errorf("call %d sent %q, want %q", i, got, want)
		}
	}
}

func TestExecuteSafety(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	ctx := context.Background()
	port := strings.Split(s.srv.URL, ":")[2]

	t.Run("loopback-refused-by-default", func(t *testing.T) {
		x, err := NewExecutor(api, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := call(t, x, ctx, "twin", `{"id":"1"}`)
		if !res.IsError || !strings.Contains(res.Text(), "not allowed") {
			t.Errorf("result %q, want a refusal", res.Text())
		}
	})
	t.Run("checked-after-dns", func(t *testing.T) {
		// The machine's own name is a name, not a literal: only the
		// dialer's check after resolution can refuse it.
		host, err := os.Hostname()
		if err != nil {
			t.Skip(err)
		}
		addrs, err := net.LookupHost(host)
		if err != nil || len(addrs) == 0 {
			t.Skipf("%s does not resolve: %v", host, err)
		}
		for _, a := range addrs {
			if ip, err := netip.ParseAddr(a); err != nil || !(ip.IsLoopback() || ip.IsPrivate()) {
				t.Skipf("%s resolves to %s, not an internal address", host, a)
			}
		}
		x, err := NewExecutor(api, &ExecConfig{Server: "http://" + host + ":" + port + "/api/v1", AllowOtherServers: true})
		if err != nil {
			t.Fatal(err)
		}
		res := call(t, x, ctx, "twin", `{"id":"1"}`)
		if !res.IsError || !strings.Contains(res.Text(), "destination address not allowed") {
			t.Errorf("result %q, want a refusal after DNS", res.Text())
		}
	})
	t.Run("server-not-in-spec", func(t *testing.T) {
		if _, err := NewExecutor(api, &ExecConfig{Server: "https://evil.example"}); !errors.Is(err, ErrServerNotAllowed) {
			t.Errorf("err %v, want ErrServerNotAllowed", err)
		}
	})
	x := executor(t, api, ExecConfig{})
	tests := []struct {
		name, what, want string
		isErr            bool
	}{
		{"redirect-followed", "redirect", `"path":"/api/v1/echo/landed"`, false},
		{"redirect-loop", "loop", "too many redirects", true},
		{"redirect-to-metadata", "metadata", "destination address not allowed", true},
		{"redirect-to-other-loopback", "other-loopback", "destination address not allowed", true},
		{"text", "text", "plain words", false},
		{"binary", "binary", "binary response: image/png, 10 bytes", false},
		{"json-array", "array", "[1,2,3]", false},
		{"http-error", "missing", `HTTP 404 Not Found: {"error":"no such pet"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, x, ctx, "echo", `{"what":"`+tt.what+`"}`)
			if res.IsError != tt.isErr || !strings.Contains(res.Text(), tt.want) {
				t.Errorf("result %q (error %v), want %q (error %v)", res.Text(), res.IsError, tt.want, tt.isErr)
			}
			if tt.what == "array" && res.StructuredContent != nil {
				t.Errorf("an array became structured content: %s", res.StructuredContent)
			}
		})
	}
	t.Run("redirects-off", func(t *testing.T) {
		x := executor(t, api, ExecConfig{MaxRedirects: -1})
		res := call(t, x, ctx, "echo", `{"what":"redirect"}`)
		if !res.IsError || !strings.HasPrefix(res.Text(), "HTTP 302 Found") {
			t.Errorf("result %q, want the redirect itself", res.Text())
		}
	})
	t.Run("timeout", func(t *testing.T) {
		x := executor(t, api, ExecConfig{Timeout: 50 * time.Millisecond})
		res := call(t, x, ctx, "echo", `{"what":"slow"}`)
		if !res.IsError || res.Text() != "request timed out" {
			t.Errorf("result %q, want a timeout", res.Text())
		}
	})
	t.Run("response-cap", func(t *testing.T) {
		x := executor(t, api, ExecConfig{MaxResponseBytes: 100})
		res := call(t, x, ctx, "echo", `{"what":"big"}`)
		want := strings.Repeat("0123456789", 10) + "\n[response truncated: larger than 100 bytes]"
		if res.Text() != want {
			t.Errorf("result %q, want %q", res.Text(), want)
		}
	})
	t.Run("error-masks-credentials", func(t *testing.T) {
		x := executor(t, api, ExecConfig{Credentials: &Credentials{BearerToken: "very-secret-token"}})
		res := call(t, x, ctx, "echo", `{"what":"missing"}`)
		if strings.Contains(res.Text(), "very-secret-token") || !strings.Contains(res.Text(), "[REDACTED]") {
			t.Errorf("result %q echoes the token", res.Text())
		}
	})
}

func TestExecuteRetries(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	ctx := context.Background()
	tests := []struct {
		name     string
		tool     string
		args     string
		failures int32
		after    string
		wantReqs int32
		wantWait []time.Duration
		wantErr  bool
		cfg      ExecConfig
	}{
		// 18446744074 s overflowed time.Duration into a short wait, and the
		// retries came fast instead of stopping.
		{"retry-after-overflow", "echo", `{"what":"flaky"}`, 1, "18446744074", 1, nil, true, ExecConfig{}},
		{"retry-after-beyond-uint64", "echo", `{"what":"flaky"}`, 1, "99999999999999999999999", 1, nil, true, ExecConfig{}},
		{"retry-after-overflow-no-wait-limit", "echo", `{"what":"flaky"}`, 1, "18446744074", 1, nil, true, ExecConfig{MaxRetryWait: -1}},
		{"retry-after-past-total-deadline", "echo", `{"what":"flaky"}`, 1, "5", 1, nil, true, ExecConfig{TotalTimeout: 2 * time.Second}},
		{"retry-after-within-total-deadline", "echo", `{"what":"flaky"}`, 1, "1", 2, []time.Duration{time.Second}, false, ExecConfig{TotalTimeout: 5 * time.Second}},
		{"retry-after-honoured", "echo", `{"what":"flaky"}`, 2, "3", 3, []time.Duration{3 * time.Second, 3 * time.Second}, false, ExecConfig{}},
		{"gives-up", "echo", `{"what":"flaky"}`, 5, "1", 3, []time.Duration{time.Second, time.Second}, true, ExecConfig{}},
		{"retry-after-too-long", "echo", `{"what":"flaky"}`, 1, "3600", 1, nil, true, ExecConfig{}},
		{"backoff-without-retry-after", "echo", `{"what":"flaky"}`, 1, "", 2, nil, false, ExecConfig{}},
		{"post-not-retried", "postNote", `{"body":"hi"}`, 0, "", 1, nil, true, ExecConfig{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.flaky.Store(tt.failures)
			s.requests.Store(0)
			x := executor(t, api, tt.cfg)
			var waits []time.Duration
			x.sleep = func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			}
			s.retryAfter = tt.after
			res := call(t, x, ctx, tt.tool, tt.args)
			if res.IsError != tt.wantErr {
				t.Errorf("result %q (error %v), want error %v", res.Text(), res.IsError, tt.wantErr)
			}
			if n := s.requests.Load(); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if tt.name == "backoff-without-retry-after" {
				if len(waits) != 1 || waits[0] < 500*time.Millisecond || waits[0] > 750*time.Millisecond {
					t.Errorf("waits %v, want one backoff of 500-750ms", waits)
				}
				return
			}
			if diff := cmp.Diff(tt.wantWait, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGenericTool(t *testing.T) {
	s := newStore(t)
	api := s.load(t, &Config{IncludeGeneric: true})
	x := executor(t, api, ExecConfig{})
	ctx := context.Background()
	got := echoOf(t, call(t, x, ctx, "http_request", `{"method":"PATCH","path":"/pets/7","query":{"q":"a b"},"headers":{"X-Ids":"1"},"body":{"n":1}}`))
	want := echoed{Method: "PATCH", Path: "/api/v1/pets/7", Query: "q=a%20b", Headers: map[string]string{"Accept": "application/json, */*;q=0.5", "X-Ids": "1"}, ContentType: "application/json", Body: `{"n":1}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	for _, args := range []string{
		`{"method":"GET","path":"http://169.254.169.254/"}`,
		`{"method":"GET","path":"//evil.example/x"}`,
		`{"method":"GET","path":"/../../admin"}`,
		`{"method":"GET","path":"/%2e%2e/admin"}`,
		`{"method":"CONNECT","path":"/"}`,
		`{"method":"GET","path":"/x","headers":{"Authorization":"Bearer stolen"}}`,
		`{"method":"GET","path":"/x","headers":{"Host":"evil"}}`,
	} {
		if res := call(t, x, ctx, "http_request", args); !res.IsError {
			t.Errorf("%s: accepted, want refused", args)
		}
	}
}

func TestExecuteSchemeCredentials(t *testing.T) {
	s := newStore(t)
	api := s.load(t, nil)
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Api-Key")+"|"+r.URL.Query().Get("api_key"))
		mu.Unlock()
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	x := executor(t, api, ExecConfig{Server: srv.URL, AllowOtherServers: true,
		Credentials:       &Credentials{APIKey: "general-key"},
		SchemeCredentials: map[string]Credentials{"keyHeader": {APIKey: "header-scheme-key"}}})
	ctx := context.Background()
	call(t, x, ctx, "keyHeader", `{}`)
	call(t, x, ctx, "keyQuery", `{}`)
	// Credentials from the context replace both.
	call(t, x, WithCredentials(ctx, "openapi", Credentials{APIKey: "caller-key"}), "keyHeader", `{}`)
	want := []string{"header-scheme-key|", "|general-key", "caller-key|"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("keys sent (-want +got):\n%s", diff)
	}
}

func TestExecutorSecrets(t *testing.T) {
	api, err := Load(context.Background(), []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example.com"}],"paths":{}}`), "t.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewExecutor(api, &ExecConfig{
		Credentials:       &Credentials{BearerToken: "tok-1", Username: "ada", Password: "pw-2"},
		SchemeCredentials: map[string]Credentials{"oauth": {ClientID: "id", ClientSecret: "cs-3"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := x.Secrets()
	slices.Sort(got)
	if diff := cmp.Diff([]string{"cs-3", "pw-2", "tok-1"}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
