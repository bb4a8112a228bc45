// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// Credentials are what an API's security schemes ask for. A field left
// empty satisfies no scheme. Values never appear in definitions, results,
// errors or logs: the executor masks every one of them in what it returns.
type Credentials struct {
	// BearerToken serves "http" schemes with scheme "bearer", and OAuth2 or
	// OpenID Connect schemes when no client credentials are given.
	BearerToken string
	// APIKey serves every "apiKey" scheme, in header, query or cookie.
	APIKey string
	// Username and Password serve "http" schemes with scheme "basic".
	Username string
	Password string
	// ClientID and ClientSecret serve OAuth2 client-credentials flows: the
	// executor fetches a token from the flow's tokenUrl, caches it and
	// fetches a new one before it expires.
	ClientID     string
	ClientSecret string
	// Scopes, when set, replace the scopes the operation asks for.
	Scopes []string
}

// The environment variables [CredentialsFromEnv] reads.
const (
	EnvBearerToken  = "TOOLGATE_OPENAPI_BEARER_TOKEN"
	EnvAPIKey       = "TOOLGATE_OPENAPI_API_KEY"
	EnvBasicUser    = "TOOLGATE_OPENAPI_BASIC_USER"
	EnvBasicPass    = "TOOLGATE_OPENAPI_BASIC_PASS"
	EnvClientID     = "TOOLGATE_OPENAPI_CLIENT_ID"
	EnvClientSecret = "TOOLGATE_OPENAPI_CLIENT_SECRET"
	EnvScopes       = "TOOLGATE_OPENAPI_SCOPES"
)

// CredentialsFromEnv reads credentials from the TOOLGATE_OPENAPI_*
// variables through getenv (os.Getenv in a program, a map in a test).
// EnvScopes is a space- or comma-separated list.
func CredentialsFromEnv(getenv func(string) string) Credentials {
	c := Credentials{
		BearerToken:  getenv(EnvBearerToken),
		APIKey:       getenv(EnvAPIKey),
		Username:     getenv(EnvBasicUser),
		Password:     getenv(EnvBasicPass),
		ClientID:     getenv(EnvClientID),
		ClientSecret: getenv(EnvClientSecret),
	}
	c.Scopes = strings.FieldsFunc(getenv(EnvScopes), func(r rune) bool { return r == ' ' || r == ',' })
	return c
}

// secrets lists the values to mask wherever the executor writes text.
func (c *Credentials) secrets() []string {
	var out []string
	for _, s := range []string{c.BearerToken, c.APIKey, c.Password, c.ClientSecret} {
		if s != "" {
			out = append(out, s)
		}
	}
	if c.Username != "" || c.Password != "" {
		out = append(out, base64.StdEncoding.EncodeToString([]byte(c.Username+":"+c.Password)))
	}
	return out
}

type credKey struct{}

// WithCredentials returns a context that carries c for calls made by the
// executor whose [ExecConfig.SourceID] is sourceID, replacing its
// configured credentials for those calls only. One caller's credential is
// thus used for that caller's call, never another's.
func WithCredentials(ctx context.Context, sourceID string, c Credentials) context.Context {
	prev, _ := ctx.Value(credKey{}).(map[string]Credentials)
	m := make(map[string]Credentials, len(prev)+1)
	for k, v := range prev {
		m[k] = v
	}
	m[sourceID] = c
	return context.WithValue(ctx, credKey{}, m)
}

func credentialsFrom(ctx context.Context, sourceID string) (Credentials, bool) {
	m, _ := ctx.Value(credKey{}).(map[string]Credentials)
	c, ok := m[sourceID]
	return c, ok
}

// callCreds are the credentials of one call: one set for every scheme,
// and per-scheme sets that replace it.
type callCreds struct {
	all     Credentials
	schemes map[string]Credentials
}

func (c *callCreds) forScheme(name string) *Credentials {
	if s, ok := c.schemes[name]; ok {
		return &s
	}
	return &c.all
}

// scheme is a security scheme of the spec.
type scheme struct {
	typ      string // apiKey, http, oauth2, openIdConnect, mutualTLS
	httpAuth string // basic, bearer… (lower case)
	in       string // header, query, cookie
	name     string
	tokenURL string // of the clientCredentials flow
}

func (b *builder) schemes() (map[string]*scheme, error) {
	out := map[string]*scheme{}
	err := members(b.root.lookup("/components/securitySchemes"), func(k, v []byte) error {
		ptr := "/components/securitySchemes/" + escPtr(string(k))
		raw, _, _, err := b.deref(v, b.root, ptr)
		if err != nil {
			// A broken scheme costs only the operations that need it: they
			// are called without credentials, which no alternative satisfies.
			return b.brokenPart(ptr, "security scheme", err)
		}
		s := &scheme{typ: str(raw, "type"), httpAuth: strings.ToLower(str(raw, "scheme")), in: str(raw, "in"), name: str(raw, "name")}
		if flows := strictjson.Get(raw, "flows"); flows != nil {
			s.tokenURL = str(strictjson.Get(flows, "clientCredentials"), "tokenUrl")
		}
		out[string(k)] = s
		return nil
	})
	return out, err
}

// authorize applies the first security alternative of op that creds can
// satisfy. It returns whether one applied; with none, the request goes
// without credentials and the API decides.
func (x *Executor) authorize(ctx context.Context, req *http.Request, op *Operation, creds *callCreds, base string) error {
	if len(op.Security) == 0 {
		return nil
	}
	for _, alt := range op.Security {
		if len(alt) == 0 {
			return nil // anonymous access is one of the alternatives
		}
		if !x.satisfiable(alt, creds) {
			continue
		}
		for _, use := range alt {
			if err := x.apply(ctx, req, x.api.schemes[use.Scheme], use, creds.forScheme(use.Scheme), base); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

func (x *Executor) satisfiable(alt Requirement, cc *callCreds) bool {
	for _, use := range alt {
		s := x.api.schemes[use.Scheme]
		c := cc.forScheme(use.Scheme)
		if s == nil {
			return false
		}
		switch s.typ {
		case "apiKey":
			if c.APIKey == "" {
				return false
			}
		case "http":
			switch s.httpAuth {
			case "basic":
				if c.Username == "" && c.Password == "" {
					return false
				}
			default:
				if c.BearerToken == "" {
					return false
				}
			}
		case "oauth2":
			if !(s.tokenURL != "" && c.ClientID != "") && c.BearerToken == "" {
				return false
			}
		case "openIdConnect":
			if c.BearerToken == "" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func (x *Executor) apply(ctx context.Context, req *http.Request, s *scheme, use SchemeUse, c *Credentials, base string) error {
	switch s.typ {
	case "apiKey":
		switch s.in {
		case "header":
			req.Header.Set(s.name, c.APIKey)
		case "query":
			q := req.URL.RawQuery
			if q != "" {
				q += "&"
			}
			req.URL.RawQuery = q + escape(s.name, false) + "=" + escape(c.APIKey, false)
		case "cookie":
			addCookie(req, s.name+"="+escape(c.APIKey, false))
		}
	case "http":
		if s.httpAuth == "basic" {
			req.SetBasicAuth(c.Username, c.Password)
		} else {
			req.Header.Set("Authorization", "Bearer "+c.BearerToken)
		}
	case "oauth2", "openIdConnect":
		token := c.BearerToken
		if s.typ == "oauth2" && s.tokenURL != "" && c.ClientID != "" {
			scopes := use.Scopes
			if len(c.Scopes) > 0 {
				scopes = c.Scopes
			}
			var err error
			token, err = x.token(ctx, resolveRef(base, s.tokenURL), c, scopes)
			if err != nil {
				return err
			}
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return nil
}

func addCookie(req *http.Request, pair string) {
	if old := req.Header.Get("Cookie"); old != "" {
		req.Header.Set("Cookie", old+"; "+pair)
	} else {
		req.Header.Set("Cookie", pair)
	}
}

// resolveRef resolves a possibly relative URL against base.
func resolveRef(base, ref string) string {
	bu, err := url.Parse(base)
	if err != nil {
		return ref
	}
	ru, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return bu.ResolveReference(ru).String()
}

// token is a cached OAuth2 access token.
type token struct {
	value   string
	expires time.Time
}

type tokenKey struct {
	url, id, secret, scopes string
}

// refreshBefore is how long before its expiry a cached token is replaced.
const refreshBefore = 30 * time.Second

// token returns an access token for the client credentials in c, from the
// cache while it has more than refreshBefore to live. One fetch runs at a
// time, so that calls arriving together share the token it gets.
func (x *Executor) token(ctx context.Context, tokenURL string, c *Credentials, scopes []string) (string, error) {
	k := tokenKey{tokenURL, c.ClientID, c.ClientSecret, strings.Join(scopes, " ")}
	cached := func() (string, bool) {
		x.mu.Lock()
		t, ok := x.tokens[k]
		x.mu.Unlock()
		return t.value, ok && x.now().Add(refreshBefore).Before(t.expires)
	}
	if v, ok := cached(); ok {
		return v, nil
	}
	select {
	case x.fetching <- struct{}{}:
		defer func() { <-x.fetching }()
	case <-ctx.Done():
		return "", fmt.Errorf("%w: waiting for a token: %w", ErrAuth, ctx.Err())
	}
	if v, ok := cached(); ok {
		return v, nil // fetched while this call waited
	}
	if err := x.checkURL(tokenURL, true); err != nil {
		return "", err
	}
	// client_secret_basic first, as RFC 6749 asks servers to support;
	// client_secret_post when the server refuses it.
	t, status, err := x.fetchToken(ctx, tokenURL, c, scopes, false)
	if err != nil && (status == http.StatusBadRequest || status == http.StatusUnauthorized) {
		t, _, err = x.fetchToken(ctx, tokenURL, c, scopes, true)
	}
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	x.tokens[k] = t
	x.mu.Unlock()
	return t.value, nil
}

// fetchToken asks the token endpoint for a client-credentials token, with
// the client's credentials in a basic Authorization header or, with post,
// in the form. It returns the HTTP status with any error.
func (x *Executor) fetchToken(ctx context.Context, tokenURL string, c *Credentials, scopes []string, post bool) (token, int, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if post {
		form.Set("client_id", c.ClientID)
		form.Set("client_secret", c.ClientSecret)
	}
	ctx = context.WithValue(ctx, tokenFetch{}, true)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return token{}, 0, fmt.Errorf("%w: token endpoint: %w", ErrAuth, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if !post {
		req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
	}
	now := x.now()
	resp, err := x.client.Do(req)
	if err != nil {
		return token{}, 0, fmt.Errorf("%w: token endpoint: %s", ErrAuth, describeError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return token{}, resp.StatusCode, fmt.Errorf("%w: token endpoint: %w", ErrAuth, err)
	}
	if resp.StatusCode/100 != 2 {
		return token{}, resp.StatusCode, fmt.Errorf("%w: token endpoint answered %s", ErrAuth, resp.Status)
	}
	if strictjson.Check(data, nil) != nil || strictjson.KindOf(data) != strictjson.Object {
		return token{}, resp.StatusCode, fmt.Errorf("%w: token endpoint did not answer a JSON object", ErrAuth)
	}
	t := token{value: str(data, "access_token"), expires: now.Add(5 * time.Minute)}
	if t.value == "" {
		return token{}, resp.StatusCode, fmt.Errorf("%w: token endpoint answered no access_token", ErrAuth)
	}
	if tt := str(data, "token_type"); tt != "" && !strings.EqualFold(tt, "bearer") {
		return token{}, resp.StatusCode, fmt.Errorf("%w: token type %q is not bearer", ErrAuth, tt)
	}
	if e := strictjson.Get(data, "expires_in"); e != nil {
		if n, err := strconv.ParseFloat(strings.Trim(string(e), `"`), 64); err == nil && n > 0 {
			t.expires = now.Add(time.Duration(n * float64(time.Second)))
		}
	}
	return t, resp.StatusCode, nil
}

// usedSecrets returns every secret a call with creds may have sent,
// cached OAuth2 tokens included, for masking.
func (x *Executor) usedSecrets(cc *callCreds) []string {
	all := []*Credentials{&cc.all}
	for _, c := range cc.schemes {
		all = append(all, &c)
	}
	var out []string
	x.mu.Lock()
	for _, c := range all {
		out = append(out, c.secrets()...)
		for k, t := range x.tokens {
			if c.ClientID != "" && k.id == c.ClientID && k.secret == c.ClientSecret {
				out = append(out, t.value)
			}
		}
	}
	x.mu.Unlock()
	// Longest first, so that a secret containing another is masked whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
