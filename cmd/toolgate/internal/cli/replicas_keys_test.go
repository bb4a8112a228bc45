// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/skipnote"
	"github.com/toolgate/toolgate/kernel"
)

// The prices of the replicas' config, USD per million tokens.
const (
	priceInput, priceCached, priceOutput, priceReasoning = 1000.0, 100.0, 3000.0, 2000.0
	replicaKeysConfig                                    = `principals:
  - {id: ops, roles: [admin]}
  - {id: team-a}
auth:
  tokens:
    - {principal: ops, token_env: ADMIN_TOKEN}
audit: {store: postgres, key_env: AUDIT_KEY}
keys: {store: postgres}
limits: {store: redis}
providers:
  - {name: local, model_name: m, provider_backend: openai_compat, api_config: {base_url: "%s/v1"}}
models: {m: local}
pricing:
  m: {input: 1000, cached_input: 100, output: 3000, reasoning: 2000}
`
	adminToken = "ops-token-of-the-replica-test"
)

// usageBackend is a model backend that answers every request with a
// usage of its own, never more than the gateway reserved for it, and
// sums what it reported: per key (by a marker the client puts in its
// message) and in all.
type usageBackend struct {
	url   string
	n     atomic.Int64
	mu    sync.Mutex
	byKey map[string]*reported
	all   reported
}

type reported struct {
	requests                                int64
	input, cached, output, reasoning, total int64
	usd                                     float64
}

func newUsageBackend(t *testing.T) *usageBackend {
	t.Helper()
	ub := &usageBackend{byKey: map[string]*reported{}}
	back := gatewaytest.NewBackend()
	back.Respond = func(r gatewaytest.Request) gatewaytest.Reply {
		var body struct {
			Messages []struct{ Content string }
		}
		json.Unmarshal(r.Body, &body)
		marker := ""
		if len(body.Messages) > 0 {
			marker, _, _ = strings.Cut(body.Messages[0].Content, " ")
		}
		// A client body of about 90 bytes is reserved as about 22 input
		// tokens and its max_tokens of 16 as output: these stay under.
		n := ub.n.Add(1)
		in, out := 10+n%8, 4+n%13
		cached, reasoning := n%5, n%3
		ub.mu.Lock()
		s := ub.byKey[marker]
		if s == nil {
			s = &reported{}
			ub.byKey[marker] = s
		}
		for _, s := range []*reported{s, &ub.all} {
			s.requests++
			s.input, s.cached, s.output, s.reasoning, s.total = s.input+in, s.cached+cached, s.output+out, s.reasoning+reasoning, s.total+in+out
			s.usd += (float64(in-cached)*priceInput + float64(cached)*priceCached + float64(out-reasoning)*priceOutput + float64(reasoning)*priceReasoning) / 1e6
		}
		ub.mu.Unlock()
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			[]byte(fmt.Sprintf(`{"id":"c","model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d},"completion_tokens_details":{"reasoning_tokens":%d}}}`,
				in, out, cached, reasoning)))}
	}
	srv := httptest.NewServer(back)
	t.Cleanup(srv.Close)
	ub.url = srv.URL
	return ub
}

func (ub *usageBackend) sums(marker string) reported {
	ub.mu.Lock()
	defer ub.mu.Unlock()
	if marker == "" {
		return ub.all
	}
	if s := ub.byKey[marker]; s != nil {
		return *s
	}
	return reported{}
}

// replicaRedisURL is the Redis of the replica tests: skipped without
// one, unless TOOLGATE_REQUIRE_STORES=1.
func replicaRedisURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("TOOLGATE_TEST_REDIS_URL")
	if u == "" {
		if os.Getenv("TOOLGATE_REQUIRE_STORES") == "1" {
			t.Fatal("TOOLGATE_TEST_REDIS_URL is not set, and TOOLGATE_REQUIRE_STORES=1")
		}
		skipnote.Skip(t, "Redis", "set TOOLGATE_TEST_REDIS_URL; .ci/run starts one")
	}
	return u
}

// chatCall is one Chat Completions request through a replica.
func chatCall(t *testing.T, base, key, content string) (int, http.Header, string) {
	t.Helper()
	body := `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"` + content + `"}]}`
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// createKey makes a key with toolgate keys create and returns its
// secret and id.
func createKey(t *testing.T, cfg string, flags ...string) (secret, id string) {
	t.Helper()
	out, errOut, err := runCLI(t, append([]string{"keys", "create", "--config", cfg, "--principal", "team-a"}, flags...)...)
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, errOut)
	}
	var made struct{ Key, ID string }
	if err := json.Unmarshal([]byte(out), &made); err != nil || made.Key == "" {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	return made.Key, made.ID
}

func baseURL(r *replica) string {
	u, _ := url.Parse(r.url)
	return u.Scheme + "://" + u.Host
}

// TestServeReplicasKeys is issue 22's "done when": three `toolgate
// serve` replicas with their audit log and keys on one PostgreSQL
// database and their limits on one Redis, in front of a backend that
// reports a usage of its own for each request:
//   - two keys, each with a tokens-per-minute limit and a USD budget,
//     one binding on each, loaded from six clients per key spread over
//     the replicas: what the backend reported for each stays within its
//     limit and the reservations in flight, and reaches it;
//   - a key revoked through one replica's admin API is refused by all
//     three within 1 s (the key cache holds a key for half of it);
//   - toolgate spend --json equals the sum of the usage the backend
//     reported, priced by the config's pricing;
//   - toolgate audit verify passes, with a model record for every
//     request the backend answered;
//   - with the keys' database or the limits' Redis gone, a request is
//     503 in the Chat Completions error shape and nothing is forwarded.
func TestServeReplicasKeys(t *testing.T) {
	pgDSN := postgresDSN(t)
	redisURL := replicaRedisURL(t)
	started := time.Now()
	bin := buildToolgate(t)
	back := newUsageBackend(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "replicas.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(replicaKeysConfig, back.url)), 0o644)
	env := []string{"PATH=" + os.Getenv("PATH"), "TOOLGATE_AUDIT_DSN=" + pgDSN, "TOOLGATE_REDIS_URL=" + redisURL,
		"AUDIT_KEY=an audit key of thirty-two bytes", "ADMIN_TOKEN=" + adminToken}
	// The CLI reads the same variables.
	t.Setenv("TOOLGATE_AUDIT_DSN", pgDSN)
	t.Setenv("AUDIT_KEY", "an audit key of thirty-two bytes")
	var reps []*replica
	for range 3 {
		reps = append(reps, startReplica(t, bin, cfg, env))
	}
	t.Logf("built and started 3 replicas in %v", time.Since(started).Round(time.Millisecond))

	// (a) Key 1 runs into its tokens per minute, key 2 into its budget.
	const tpm, budget = 1500, 2.0
	k1, _ := createKey(t, cfg, "--tpm", fmt.Sprint(tpm), "--budget-usd", "1000")
	k2, _ := createKey(t, cfg, "--tpm", "1000000", "--budget-usd", fmt.Sprint(budget))
	// All of the load in one minute's window of the tpm.
	if left := time.Minute - time.Duration(time.Now().UnixNano()%int64(time.Minute)); left < 20*time.Second {
		time.Sleep(left + 50*time.Millisecond)
	}
	type tally struct {
		mu                       sync.Mutex
		ok, tokens, spent, other int
	}
	var t1, t2 tally
	const workers = 6
	deadline := time.Now().Add(10 * time.Second)
	var wg sync.WaitGroup
	for w := range 2 * workers {
		key, marker, tl := k1, "K1", &t1
		if w%2 == 1 {
			key, marker, tl = k2, "K2", &t2
		}
		base := baseURL(reps[w%3])
		wg.Go(func() {
			refusals := 0
			for i := 0; refusals < 3 && time.Now().Before(deadline); i++ {
				code, hdr, body := chatCall(t, base, key, fmt.Sprintf("%s request %d of worker %d", marker, i, w))
				tl.mu.Lock()
				switch {
				case code == 200:
					tl.ok++
				case code == 429 && strings.Contains(body, `"type":"budget_exceeded"`):
					tl.spent++
					refusals++
				case code == 429 && hdr.Get("x-ratelimit-remaining-tokens") == "0":
					tl.tokens++
					refusals++
				default:
					tl.other++
					t.Errorf("%s: %d %s", marker, code, body)
					refusals = 3
				}
				tl.mu.Unlock()
			}
		})
	}
	wg.Wait()
	// A request's reservation: its body's length over four, and
	// max_tokens; priced at the input and output prices.
	resTokens := float64(len(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"K1 request 100 of worker 10"}]}`)/4 + 16)
	resUSD := (resTokens-16)*priceInput/1e6 + 16*priceOutput/1e6
	s1, s2 := back.sums("K1"), back.sums("K2")
	t.Logf("key 1 (tpm %d): %d answered, %d refused for tpm, %d for budget; %d tokens reported (in flight at most %d × %.0f)",
		tpm, t1.ok, t1.tokens, t1.spent, s1.total, workers, resTokens)
	t.Logf("key 2 (budget $%g): %d answered, %d refused for tpm, %d for budget; $%.4f reported (in flight at most %d × $%.4f)",
		budget, t2.ok, t2.tokens, t2.spent, s2.usd, workers, resUSD)
	if int64(t1.ok) != s1.requests || int64(t2.ok) != s2.requests {
		t.Errorf("the backend got %d and %d requests of keys 1 and 2; the clients had %d and %d answered", s1.requests, s2.requests, t1.ok, t2.ok)
	}
	if t1.tokens == 0 || float64(s1.total) > tpm+workers*resTokens || s1.total < tpm/2 {
		t.Errorf("key 1: %d tokens used of a tpm of %d (in flight at most %.0f), %d refusals for tpm; want refusals, and at least half the limit used and no more than it and what was in flight",
			s1.total, tpm, workers*resTokens, t1.tokens)
	}
	if t2.spent == 0 || s2.usd > budget+workers*resUSD+1e-9 || s2.usd < budget/2 {
		t.Errorf("key 2: $%.4f used of a budget of $%g (in flight at most $%.4f), %d refusals for the budget; want refusals, and at least half the budget used and no more than it and what was in flight",
			s2.usd, budget, workers*resUSD, t2.spent)
	}

	// (b) A key revoked through one replica is refused by all three.
	admin := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, baseURL(reps[1])+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := admin("POST", "/admin/v1/keys", `{"principal":"team-a"}`)
	var k3 struct{ Key, ID string }
	if json.Unmarshal([]byte(body), &k3); code != 201 || k3.Key == "" {
		t.Fatalf("admin create: %d %s", code, body)
	}
	for i, r := range reps {
		if code, _, body := chatCall(t, baseURL(r), k3.Key, "K3 before"); code != 200 {
			t.Fatalf("replica %d, the new key: %d %s", i, code, body)
		}
	}
	var revoked time.Time
	var ready sync.WaitGroup
	refusedAt := make([]time.Time, len(reps))
	stop := make(chan struct{})
	ready.Add(len(reps))
	for i, r := range reps {
		wg.Go(func() {
			ready.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, _, body := chatCall(t, baseURL(r), k3.Key, "K3 polling")
				if code == 401 {
					if !strings.Contains(body, `"type":"authentication_error"`) {
						t.Errorf("replica %d: the revoked key's refusal is not in the API's shape: %s", i, body)
					}
					refusedAt[i] = time.Now()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	ready.Wait()
	if code, body := admin("DELETE", "/admin/v1/keys/"+k3.ID, ""); code != 200 {
		t.Fatalf("revoke: %d %s", code, body)
	}
	revoked = time.Now()
	time.AfterFunc(3*time.Second, func() { close(stop) })
	wg.Wait()
	for i, at := range refusedAt {
		switch {
		case at.IsZero():
			t.Errorf("replica %d still takes the key 3 s after its revocation", i)
		case at.Sub(revoked) > time.Second:
			t.Errorf("replica %d refused the revoked key after %v, want within 1 s", i, at.Sub(revoked).Round(time.Millisecond))
		default:
			t.Logf("replica %d refused the revoked key %v after the DELETE returned", i, at.Sub(revoked).Round(time.Millisecond))
		}
	}

	if show, _, err := runCLI(t, "keys", "show", "--config", cfg, "--json", k3.ID); err != nil || !strings.Contains(show, `"revoked"`) {
		t.Errorf("keys show after the revocation: %v\n%s", err, show)
	}

	// Stopped, the replicas write the spend they hold and their audit
	// records.
	for _, r := range reps {
		r.cmd.Process.Signal(os.Interrupt)
		r.cmd.Wait()
	}

	// (c) toolgate spend is what the backend reported, priced.
	all := back.sums("")
	out, errOut, err := runCLI(t, "spend", "--config", cfg, "--by", "key", "--json")
	var report struct {
		Total kernel.Spend `json:"total"`
	}
	if err != nil || json.Unmarshal([]byte(out), &report) != nil {
		t.Fatalf("spend: %v\n%s%s", err, out, errOut)
	}
	got := report.Total
	if got.Requests != all.requests || got.InputTokens != all.input || got.CachedTokens != all.cached || got.OutputTokens != all.output ||
		got.ReasoningTokens != all.reasoning || math.Abs(got.CostUSD-all.usd) > 1e-9*max(1, all.usd) || got.Unpriced != 0 {
		t.Errorf("spend total %+v; the backend reported %d requests, %d input (%d cached), %d output (%d reasoning), $%.6f",
			got, all.requests, all.input, all.cached, all.output, all.reasoning, all.usd)
	} else {
		t.Logf("spend: %d requests, $%.6f, equal to what the backend reported", got.Requests, got.CostUSD)
	}

	// (d) One intact chain, with every answered request a model record.
	out, err = verifyPostgres(t, dir, pgDSN)
	if err != nil || !strings.Contains(out, "intact") {
		t.Errorf("audit verify: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "audit", "list", "--config", filepath.Join(dir, "verify.yaml"), "--json")
	var recs []kernel.AuditRecord
	if err != nil || json.Unmarshal([]byte(out), &recs) != nil {
		t.Fatalf("audit list: %v\n%.300s", err, out)
	}
	models := 0
	for _, r := range recs {
		if r.Kind == kernel.RecordModel && r.Principal == "team-a" && r.Status == kernel.StatusOK {
			models++
		}
	}
	if int64(models) != all.requests || len(recs) != models {
		t.Errorf("%d model records of %d records; the backend answered %d requests", models, len(recs), all.requests)
	}

	t.Run("stores_down", func(t *testing.T) { testStoresDown(t, bin, back, redisURL) })
}

// testStoresDown runs a replica whose PostgreSQL and Redis are reached
// through proxies, closes each in turn, and sends a request with a key
// the replica has not seen: 503 in the API's shape, and the backend gets
// nothing.
func testStoresDown(t *testing.T, bin string, back *usageBackend, redisURL string) {
	dsn := postgresDSN(t) // a schema of its own
	pu, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ru, err := url.Parse(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	pgProxy, redisProxy := newTCPProxy(t, pu.Host), newTCPProxy(t, ru.Host)
	viaPG, viaRedis := *pu, *ru
	viaPG.Host, viaRedis.Host = pgProxy.addr(), redisProxy.addr()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "down.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(replicaKeysConfig, back.url)), 0o644)
	t.Setenv("TOOLGATE_AUDIT_DSN", dsn) // the CLI reaches the database directly
	r := startReplica(t, bin, cfg, []string{"PATH=" + os.Getenv("PATH"), "TOOLGATE_AUDIT_DSN=" + viaPG.String(),
		"TOOLGATE_REDIS_URL=" + viaRedis.String(), "AUDIT_KEY=an audit key of thirty-two bytes", "ADMIN_TOKEN=" + adminToken})
	defer r.cmd.Process.Kill() // its audit log cannot be flushed: no drain
	base := baseURL(r)
	k, _ := createKey(t, cfg, "--tpm", "100000")
	if code, _, body := chatCall(t, base, k, "K4 both up"); code != 200 {
		t.Fatalf("with both stores up: %d %s", code, body)
	}
	for _, step := range []struct {
		name  string
		close *tcpProxy
	}{{"redis", redisProxy}, {"postgres", pgProxy}} {
		step.close.close()
		k, _ := createKey(t, cfg, "--tpm", "100000")
		before := back.sums("").requests
		code, _, body := chatCall(t, base, k, "K5 "+step.name+" down")
		var shape struct {
			Error struct{ Message, Type string }
		}
		if code != 503 || json.Unmarshal([]byte(body), &shape) != nil || shape.Error.Message == "" {
			t.Errorf("%s down: %d %s, want 503 in the Chat Completions error shape", step.name, code, body)
		}
		if n := back.sums("").requests; n != before {
			t.Errorf("%s down: the backend got %d requests", step.name, n-before)
		}
		t.Logf("%s down: %d %s", step.name, code, strings.TrimSpace(body))
	}
}

// tcpProxy forwards connections to a server until closed, when it drops
// them all: the server, as its clients see it, goes down.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	t.Cleanup(p.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
