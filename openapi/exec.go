// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/tool"
)

// Errors of execution that are Go errors: the executor itself, not the
// API, failed. Everything the API or the arguments got wrong is a
// [tool.Result] with IsError set.
var (
	// ErrUnknownOperation reports a call to a tool this executor lacks.
	ErrUnknownOperation = errors.New("openapi: unknown operation")
	// ErrAuth reports a failure to obtain credentials (an OAuth2 token).
	ErrAuth = errors.New("openapi: authentication failed")
	// ErrServerNotAllowed reports a server outside the spec's servers.
	ErrServerNotAllowed = errors.New("openapi: server not allowed")
)

// Defaults of [ExecConfig], used where a field is zero.
const (
	// DefaultTimeout bounds each attempt of a call.
	DefaultTimeout = 30 * time.Second
	// DefaultTotalTimeout bounds a whole call, retries and their waits
	// included.
	DefaultTotalTimeout = 60 * time.Second
	// DefaultMaxRedirects is how many redirects a call follows.
	DefaultMaxRedirects = 5
	// DefaultMaxResponseBytes is the response size cap: how much of a
	// body is read at all.
	DefaultMaxResponseBytes = 1 << 20
	// DefaultMaxResultTokens caps the text a result hands the model, in
	// estimated tokens (see [ExecConfig.MaxResultTokens]).
	DefaultMaxResultTokens = 25_000
	// DefaultMaxRetries is how many times an idempotent request is
	// repeated.
	DefaultMaxRetries = 2
	// DefaultRetryBase is the first backoff delay.
	DefaultRetryBase = 500 * time.Millisecond
	// DefaultMaxRetryWait is the longest wait between attempts honoured.
	DefaultMaxRetryWait = 30 * time.Second
)

// ExecConfig says how calls are made. The zero value (or nil) is the
// secure default: the spec's first server, no private addresses,
// redirects only within the spec's servers, and the Default limits
// above. Limits follow one rule: zero means the documented default, a
// negative value turns the limit off.
type ExecConfig struct {
	// SourceID names this API for per-call credentials: see
	// [WithCredentials]. If empty, "openapi".
	SourceID string
	// Server is the base URL calls go to. If empty, the operation's first
	// server. A URL that is none of the spec's servers needs
	// AllowOtherServers (the CLI's --server sets both).
	Server string
	// ServerVariables fill the {variables} of server URLs; missing ones
	// take the spec's defaults.
	ServerVariables map[string]string
	// AllowOtherServers lets Server name a base URL the spec does not list.
	AllowOtherServers bool
	// AllowRedirectsAnywhere lets a redirect lead anywhere the address
	// guard allows. Without it a redirect must stay within one of the
	// servers calls may go to (same scheme, host and port, and a path
	// under the server's base path), and a token endpoint's redirect on
	// the token endpoint's origin; any other is refused.
	AllowRedirectsAnywhere bool
	// AllowPrivate allows private, loopback and link-local destinations.
	// Without it they are refused after DNS resolution, on every redirect.
	AllowPrivate bool
	// AllowPrefixes are internal address ranges allowed without
	// AllowPrivate: an internal API's 10.1.2.0/24, say, while the cloud
	// metadata address stays refused.
	AllowPrefixes []netip.Prefix
	// Credentials are used for every call unless the context carries
	// others for SourceID.
	Credentials *Credentials
	// SchemeCredentials, keyed by security scheme name as the spec's
	// components name it, replace Credentials for that scheme: an API key
	// for one scheme and OAuth2 client credentials for another. Credentials
	// from the context replace these too.
	SchemeCredentials map[string]Credentials
	// Timeout bounds each attempt, redirects included. If zero,
	// [DefaultTimeout]; negative, none beyond TotalTimeout and the
	// context's.
	Timeout time.Duration
	// TotalTimeout bounds the whole call: every attempt, the waits
	// between them and a token fetch. A retry that could not start before
	// it passes is not made; the last response is the result. If zero,
	// [DefaultTotalTimeout]; negative, none beyond the context's.
	TotalTimeout time.Duration
	// MaxRedirects is how many redirects are followed. If zero,
	// [DefaultMaxRedirects]; negative, none (the redirect is the result).
	MaxRedirects int
	// MaxResponseBytes caps the response body read; the rest is dropped
	// and the result says so. If zero, [DefaultMaxResponseBytes];
	// negative, no cap.
	MaxResponseBytes int64
	// MaxResultTokens caps the text a result hands the model, estimated
	// at four bytes a token: a longer text is cut at a character
	// boundary and the result says how much of it was left out. If zero,
	// [DefaultMaxResultTokens]; negative, no cap. Binary bodies never
	// reach the model as text: the result names their type, size and
	// SHA-256.
	MaxResultTokens int
	// MaxRetries is how many times an idempotent request (GET, HEAD, PUT,
	// DELETE, OPTIONS) answered 429, 502, 503 or 504 is repeated. If zero,
	// [DefaultMaxRetries]; negative, none.
	MaxRetries int
	// RetryBase is the first backoff delay, doubled each retry, with
	// jitter. If zero, [DefaultRetryBase]; negative, no delay. A
	// Retry-After header replaces it.
	RetryBase time.Duration
	// MaxRetryWait is the longest wait honoured; a Retry-After asking for
	// more (or more than is left of TotalTimeout) ends the retries and the
	// 429 or 503 is the result. If zero, [DefaultMaxRetryWait]; negative,
	// no limit but TotalTimeout.
	MaxRetryWait time.Duration
	// Transport, if set, replaces the guarded transport. The address guard
	// then no longer applies: use it for tests and trusted proxies only.
	Transport http.RoundTripper
	// UserAgent is sent with every request. If empty, "toolgate".
	UserAgent string
}

// Executor calls an [API]'s operations over HTTP. It satisfies the
// kernel's executor interface without importing it, and is safe for
// concurrent use.
type Executor struct {
	// fixed at creation
	api      *API
	cfg      ExecConfig
	client   *http.Client
	guard    *guard
	redactor *redact.Redactor
	servers  []string // allowed base URLs, resolved
	sleep    func(context.Context, time.Duration) error
	now      func() time.Time
	fetching chan struct{} // holds a token while an OAuth2 token is fetched

	mu     sync.Mutex
	tokens map[tokenKey]token
}

// Secrets returns the configured credentials' secret values (tokens, API
// keys, passwords, client secrets), so that a kernel running this executor
// can mask them wherever they surface — in arguments, results, errors and
// the audit log — not only in this executor's own results. It satisfies
// the kernel's SecretHolder without importing it.
func (x *Executor) Secrets() []string {
	var out []string
	add := func(c *Credentials) {
		for _, v := range []string{c.BearerToken, c.APIKey, c.Password, c.ClientSecret} {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	if x.cfg.Credentials != nil {
		add(x.cfg.Credentials)
	}
	for _, c := range x.cfg.SchemeCredentials {
		add(&c)
	}
	return out
}

// NewExecutor returns an executor for api. It checks that the configured
// server is allowed.
func NewExecutor(api *API, cfg *ExecConfig) (*Executor, error) {
	x := &Executor{api: api, tokens: map[tokenKey]token{}, now: time.Now, sleep: sleepCtx, redactor: redact.Default(),
		fetching: make(chan struct{}, 1)}
	if cfg != nil {
		x.cfg = *cfg
		if cfg.Credentials != nil {
			c := *cfg.Credentials
			c.Scopes = slices.Clone(c.Scopes)
			x.cfg.Credentials = &c
		}
		if cfg.SchemeCredentials != nil {
			x.cfg.SchemeCredentials = make(map[string]Credentials, len(cfg.SchemeCredentials))
			for k, v := range cfg.SchemeCredentials {
				v.Scopes = slices.Clone(v.Scopes)
				x.cfg.SchemeCredentials[k] = v
			}
		}
	}
	c := &x.cfg
	if c.SourceID == "" {
		c.SourceID = "openapi"
	}
	c.Timeout = orDefault(c.Timeout, DefaultTimeout)
	c.TotalTimeout = orDefault(c.TotalTimeout, DefaultTotalTimeout)
	c.MaxRedirects = orDefault(c.MaxRedirects, DefaultMaxRedirects)
	c.MaxResponseBytes = orDefault(c.MaxResponseBytes, DefaultMaxResponseBytes)
	c.MaxResultTokens = orDefault(c.MaxResultTokens, DefaultMaxResultTokens)
	c.MaxRetries = orDefault(c.MaxRetries, DefaultMaxRetries)
	c.RetryBase = orDefault(c.RetryBase, DefaultRetryBase)
	c.MaxRetryWait = orDefault(c.MaxRetryWait, DefaultMaxRetryWait)
	if c.UserAgent == "" {
		c.UserAgent = "toolgate"
	}
	c.AllowPrefixes = slices.Clone(c.AllowPrefixes)
	x.guard = &guard{allowPrivate: c.AllowPrivate, allow: c.AllowPrefixes}
	for _, s := range api.Servers {
		x.servers = append(x.servers, x.expandServer(s))
	}
	for _, op := range api.Operations {
		for _, s := range op.Servers {
			if u := x.expandServer(s); !slices.Contains(x.servers, u) {
				x.servers = append(x.servers, u)
			}
		}
	}
	if c.Server != "" {
		u := strings.TrimRight(c.Server, "/")
		if !c.AllowOtherServers && !slices.Contains(x.servers, u) {
			return nil, fmt.Errorf("%w: %s is not one of the spec's servers", ErrServerNotAllowed, c.Server)
		}
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, fmt.Errorf("%w: %q is not an absolute http(s) URL", ErrServerNotAllowed, c.Server)
		}
		if !slices.Contains(x.servers, u) {
			x.servers = append(x.servers, u)
		}
	}
	tr := c.Transport
	if tr == nil {
		tr = x.guard.transport()
	}
	x.client = &http.Client{Transport: tr, CheckRedirect: x.checkRedirect}
	return x, nil
}

// maxText is the most bytes of response text handed to the model, or -1.
func (x *Executor) maxText() int {
	if x.cfg.MaxResultTokens < 0 {
		return -1
	}
	return min(x.cfg.MaxResultTokens, math.MaxInt/bytesPerToken) * bytesPerToken
}

// orDefault is the limit convention: zero means def; anything else,
// negative (off) included, stays.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// expandServer fills a server URL's variables and drops its trailing
// slash.
func (x *Executor) expandServer(s Server) string {
	vals := map[string]string{}
	for k, v := range s.Variables {
		vals[k] = v.Default
		if o, ok := x.cfg.ServerVariables[k]; ok && (len(v.Enum) == 0 || slices.Contains(v.Enum, o)) {
			vals[k] = o
		}
	}
	return strings.TrimRight(expandPath(s.URL, vals), "/")
}

// ErrRedirectNotAllowed reports a redirect out of the spec's servers
// without [ExecConfig.AllowRedirectsAnywhere].
var ErrRedirectNotAllowed = errors.New("openapi: redirect outside the API's servers")

// tokenFetch marks the context of an OAuth2 token request: its redirects
// may stay on the token endpoint's origin.
type tokenFetch struct{}

func (x *Executor) checkRedirect(req *http.Request, via []*http.Request) error {
	if x.cfg.MaxRedirects < 0 {
		return http.ErrUseLastResponse // the redirect is the result
	}
	if len(via) > x.cfg.MaxRedirects {
		return errTooManyRedirects
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: redirect to scheme %q", ErrBlockedAddress, req.URL.Scheme)
	}
	if err := x.guard.checkHost(req.URL.Hostname()); err != nil {
		return err
	}
	if !x.cfg.AllowRedirectsAnywhere && !x.redirectAllowed(req, via[0]) {
		return fmt.Errorf("%w: %s", ErrRedirectNotAllowed, redactedURL(req.URL))
	}
	// Credentials stay with the host they were meant for. net/http drops
	// Authorization and Cookie on a cross-host redirect but not an API key
	// header of a name it does not know.
	if prev := via[len(via)-1]; prev.URL.Host != req.URL.Host {
		for _, s := range x.api.schemes {
			if s.typ == "apiKey" && s.in == "header" {
				req.Header.Del(s.name)
			}
		}
		req.Header.Del("Authorization")
		req.Header.Del("Cookie")
	}
	return nil
}

// redirectAllowed reports whether a redirect to req stays within one of
// the servers calls may go to: same scheme, host and port, and a path
// under the server's base path. A token request's redirect may also stay
// on the origin of the token endpoint.
func (x *Executor) redirectAllowed(req *http.Request, first *http.Request) bool {
	if req.Context().Value(tokenFetch{}) != nil && sameOrigin(req.URL, first.URL) {
		return true
	}
	for _, s := range x.servers {
		su, err := url.Parse(s)
		if err != nil || su.Host == "" {
			continue
		}
		if !sameOrigin(req.URL, su) {
			continue
		}
		base := strings.TrimRight(su.EscapedPath(), "/")
		p := req.URL.EscapedPath()
		if base == "" || p == base || strings.HasPrefix(p, base+"/") {
			return true
		}
	}
	return false
}

// sameOrigin compares scheme, host and port, the port made explicit.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// redactedURL is u without credentials or query, which may carry an API
// key.
func redactedURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment = nil, "", false, ""
	return c.String()
}

// checkURL refuses a URL whose host is a literal internal address, and,
// unless other servers are allowed, one outside the spec's servers.
func (x *Executor) checkURL(u string, token bool) error {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return fmt.Errorf("%w: %q is not an absolute http(s) URL", ErrServerNotAllowed, u)
	}
	if err := x.guard.checkHost(pu.Hostname()); err != nil {
		return err
	}
	if token {
		return nil // the token URL comes from the spec, like the servers
	}
	for _, s := range x.servers {
		if u == s || strings.HasPrefix(u, s+"/") || strings.HasPrefix(u, s+"?") {
			return nil
		}
	}
	return fmt.Errorf("%w: %s", ErrServerNotAllowed, pu.Redacted())
}

// base returns the base URL for op.
func (x *Executor) base(op *Operation) (string, error) {
	if x.cfg.Server != "" {
		return strings.TrimRight(x.cfg.Server, "/"), nil
	}
	if len(op.Servers) == 0 {
		return "", fmt.Errorf("%w: the spec names no server; configure one", ErrServerNotAllowed)
	}
	u := x.expandServer(op.Servers[0])
	if !strings.Contains(u, "://") {
		return "", fmt.Errorf("%w: the spec's server %q is relative; configure a server URL", ErrServerNotAllowed, op.Servers[0].URL)
	}
	return u, nil
}

// Execute calls the operation call.Name with call.Arguments. Problems of
// the call (bad arguments, refused address, HTTP errors, timeouts) are
// results with IsError set; the error is for the executor's own failures.
func (x *Executor) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	op := x.api.Operation(call.Name)
	if op == nil {
		return tool.Result{}, fmt.Errorf("%w: %q", ErrUnknownOperation, call.Name)
	}
	creds := &callCreds{}
	if c, ok := credentialsFrom(ctx, x.cfg.SourceID); ok {
		creds.all = c
	} else {
		if x.cfg.Credentials != nil {
			creds.all = *x.cfg.Credentials
		}
		creds.schemes = x.cfg.SchemeCredentials
	}
	res, err := x.execute(ctx, op, call, creds)
	res.CallID, res.Name = call.ID, call.Name
	secrets := x.usedSecrets(creds)
	if err != nil {
		return res, &maskedError{msg: x.mask(err.Error(), secrets), err: err}
	}
	x.maskResult(&res, secrets)
	return res, nil
}

func (x *Executor) execute(ctx context.Context, op *Operation, call tool.Call, creds *callCreds) (tool.Result, error) {
	args := call.Arguments
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = []byte("{}")
	}
	if err := strictjson.Check(args, nil); err != nil {
		return tool.ErrorResult(call.ID, "invalid arguments: "+err.Error()), nil
	}
	if strictjson.KindOf(args) != strictjson.Object {
		return tool.ErrorResult(call.ID, "invalid arguments: not a JSON object"), nil
	}
	base, err := x.base(op)
	if err != nil {
		return tool.ErrorResult(call.ID, err.Error()), nil
	}
	var r *request
	if op.Generic {
		r, err = buildGeneric(base, args)
	} else {
		r, err = buildRequest(op, base, args)
	}
	if err != nil {
		return tool.ErrorResult(call.ID, "invalid arguments: "+err.Error()), nil
	}
	if err := x.checkURL(r.url, false); err != nil {
		return tool.ErrorResult(call.ID, "request refused: "+err.Error()), nil
	}
	return x.do(ctx, op, r, creds, base)
}

// maskedError is an executor failure whose text had the call's secrets
// masked. It matches what the original matched (errors.Is) but does not
// unwrap to it, so no caller can reach the unmasked text.
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }

// Is reports whether the original error matches target.
func (e *maskedError) Is(target error) bool { return errors.Is(e.err, target) }

// request is a call ready to send, its body kept so that a retry can send
// it again.
type request struct {
	method      string
	url         string
	header      http.Header
	cookies     []string
	body        []byte
	contentType string
}

// do sends r, retrying idempotent requests on 429, 502, 503 and 504,
// all within the call's total deadline.
func (x *Executor) do(ctx context.Context, op *Operation, r *request, creds *callCreds, base string) (tool.Result, error) {
	retries := x.cfg.MaxRetries
	if retries < 0 || !idempotent(r.method) {
		retries = 0
	}
	total, each := x.cfg.TotalTimeout, x.cfg.Timeout
	if retries == 0 && total > 0 && each > 0 {
		// One attempt: its timeout and the call's are one deadline, and
		// one context (with its timer) is enough for both. Either ends
		// the call as "request timed out".
		total, each = min(total, each), 0
	}
	if total > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, total)
		defer cancel()
	}
	for attempt := 0; ; attempt++ {
		res, wait, retry, err := x.attempt(ctx, op, r, creds, base, each)
		if err != nil || !retry || attempt >= retries {
			return res, err
		}
		if wait < 0 {
			wait = max(x.cfg.RetryBase, 0) << attempt
			wait += time.Duration(rand.Int64N(int64(wait)/2 + 1))
		}
		if x.cfg.MaxRetryWait >= 0 && wait > x.cfg.MaxRetryWait {
			return res, nil // the server asks for more patience than allowed
		}
		if dl, ok := ctx.Deadline(); ok && x.now().Add(wait).After(dl) {
			return res, nil // the retry could not start before the deadline
		}
		if err := x.sleep(ctx, wait); err != nil {
			return tool.ErrorResult("", "request cancelled while waiting to retry: "+describeError(err)), nil
		}
	}
}

// attempt makes one request within timeout (none if not positive). wait
// is the Retry-After delay, or -1.
func (x *Executor) attempt(ctx context.Context, op *Operation, r *request, creds *callCreds, base string, timeout time.Duration) (res tool.Result, wait time.Duration, retry bool, err error) {
	wait = -1
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return tool.ErrorResult("", "invalid request: "+err.Error()), wait, false, nil
	}
	for k, v := range r.header {
		req.Header[k] = slices.Clone(v)
	}
	if len(r.cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(r.cookies, "; "))
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if req.Header.Get("Accept") == "" {
		if op.Accept != "" {
			req.Header.Set("Accept", op.Accept)
		} else {
			req.Header.Set("Accept", "application/json, */*;q=0.5")
		}
	}
	req.Header.Set("User-Agent", x.cfg.UserAgent)
	if err := x.authorize(ctx, req, op, creds, base); err != nil {
		if errors.Is(err, ErrBlockedAddress) || errors.Is(err, ErrServerNotAllowed) {
			return tool.ErrorResult("", "request refused: "+err.Error()), wait, false, nil
		}
		return tool.Result{}, wait, false, err
	}
	resp, err := x.client.Do(req)
	if err != nil {
		return tool.ErrorResult("", describeError(err)), wait, false, nil
	}
	defer resp.Body.Close()
	limit := x.cfg.MaxResponseBytes
	var data []byte
	truncated := false
	if limit < 0 {
		data, err = io.ReadAll(resp.Body)
	} else {
		data, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
		if int64(len(data)) > limit {
			data, truncated = data[:limit], true
		}
	}
	if err != nil {
		return tool.ErrorResult("", "reading the response: "+describeError(err)), wait, false, nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		retry = true
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), x.now()); ok {
			wait = d
		}
	}
	return result(resp, data, truncated, limit, x.maxText()), wait, retry, nil
}

// describeError says what went wrong with a request without the URL,
// which may carry an API key in its query. A refusal by the address
// guard, a refused redirect and a failed DNS lookup each say which they
// were.
func describeError(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "request timed out"
	case errors.Is(err, context.Canceled):
		return "request cancelled"
	case errors.Is(err, ErrBlockedAddress):
		return "request refused by the address guard: " + err.Error()
	case errors.Is(err, ErrRedirectNotAllowed):
		return "request refused: " + err.Error()
	case errors.Is(err, ErrResolve):
		return "request failed: DNS lookup failed (not a refusal): " + err.Error()
	case errors.Is(err, errTooManyRedirects):
		return "request failed: too many redirects"
	}
	return "request failed: " + err.Error()
}

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(math.MaxInt64)

// retryAfter parses a Retry-After header: seconds or an HTTP date. A
// delay too long for a Duration is the longest Duration, never a
// wrapped-around short one.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(h, 10, 64); err == nil {
		if n > uint64(maxDuration/time.Second) {
			return maxDuration, true
		}
		return time.Duration(n) * time.Second, true
	} else if errors.Is(err, strconv.ErrRange) {
		return maxDuration, true
	}
	if t, err := http.ParseTime(h); err == nil {
		d := t.Sub(now) // Sub saturates rather than wrapping
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// mask replaces every secret in s.
func (x *Executor) mask(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) < 4 {
			continue // too short to mask without destroying the text
		}
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
		if e := url.QueryEscape(sec); e != sec && strings.Contains(s, e) {
			s = strings.ReplaceAll(s, e, "[REDACTED]")
		}
		if e := escape(sec, false); e != sec && strings.Contains(s, e) {
			s = strings.ReplaceAll(s, e, "[REDACTED]")
		}
	}
	return s
}

// maskResult masks the credentials of this call wherever the API echoed
// them back, and, in error results, anything that looks like a secret.
func (x *Executor) maskResult(res *tool.Result, secrets []string) {
	for _, c := range res.Content {
		switch c := c.(type) {
		case *tool.Text:
			c.Text = x.mask(c.Text, secrets)
			if res.IsError {
				c.Text = x.redactor.String(c.Text)
			}
		case *tool.JSON:
			c.Value = x.maskJSON(c.Value, secrets)
		}
	}
	if res.StructuredContent != nil {
		res.StructuredContent = x.maskJSON(res.StructuredContent, secrets)
	}
}

func (x *Executor) maskJSON(v []byte, secrets []string) []byte {
	s := x.mask(string(v), secrets)
	if s == string(v) {
		return v
	}
	// The masks are plain ASCII and replace whole secrets, which JSON
	// holds unescaped when they are printable; the result stays JSON.
	if strictjson.Check([]byte(s), nil) != nil {
		return strictjson.AppendQuote(nil, s)
	}
	return []byte(s)
}
