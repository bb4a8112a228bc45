// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/direct"
)

// Defaults for [Provider] fields left zero.
const (
	DefaultConnectTimeout    = 5 * time.Second
	DefaultFirstTokenTimeout = 120 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultTotalTimeout      = 10 * time.Minute
	DefaultRetries           = 2
	// DefaultMaxRetryAfter is the longest Retry-After the gateway waits;
	// a backend asking for longer is not retried.
	DefaultMaxRetryAfter = 30 * time.Second
	// AnthropicVersion is the anthropic-version header sent to Anthropic
	// backends.
	AnthropicVersion = "2023-06-01"
)

// Provider is one model backend.
type Provider struct {
	// Name is the provider's unique name; models map to it.
	Name string
	// API is the backend's API.
	API API
	// BaseURL is the API root the vendor's own SDK takes:
	// https://api.openai.com/v1, https://api.anthropic.com (a trailing
	// /v1 is tolerated), http://127.0.0.1:8000/v1.
	BaseURL string
	// APIKey is sent as a bearer token (x-api-key for Anthropic). It never
	// appears in a log, a metric or an error.
	APIKey string
	// Model is the backend's name for the model.
	Model string
	// Compat marks an OpenAI-compatible server that is not OpenAI.
	Compat bool
	// MaxTokens is sent when the client sets no bound. If zero, see
	// [BackendOptions.MaxTokens].
	MaxTokens int
	// Timeouts: zero means the DefaultX above, negative none. Connect
	// bounds dialing, FirstToken the wait for the response's first byte,
	// Idle the wait between two reads of the stream, Total the whole
	// exchange.
	//
	// A client that does not stream makes the gateway ask the backend for
	// its whole answer in one body, whose first byte comes only once the
	// answer is complete: FirstToken does not apply to it, Total bounds
	// the wait for its first byte (and the whole exchange), Idle each read
	// of the body. A streamed exchange (a streaming client, two passes) is
	// bounded as above.
	ConnectTimeout, FirstTokenTimeout, IdleTimeout, TotalTimeout time.Duration
	// Retries is how many times a failed attempt is tried again: connect
	// errors, 429, 502, 503 and 504, before the first byte reaches the
	// client. If zero, DefaultRetries; negative, none.
	Retries int
	// MaxRetryAfter bounds the Retry-After the gateway honours. If zero,
	// DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// Fallbacks are providers tried, in order, when this one fails
	// before the first byte.
	Fallbacks []string

	// Backend is the kind of server behind API: which extras its
	// requests may carry. If empty, BackendOpenAI for APIChat and
	// APIResponses (BackendCompat when Compat is set), BackendAnthropic
	// for APIMessages.
	Backend Backend
	// ToolParser is the textcall family the backend's model prints its
	// calls in (hermes, qwen3-coder, …): the gateway then renders the
	// family's tools prompt, sends the backend no tools and reads the
	// calls from its text. Empty or "openai": the backend's native tools.
	ToolParser string
	// Parsing says where the backend's output carries reasoning. If
	// empty, ParsingReasoningField.
	Parsing ParsingFormat
	// ThinkTag is the reasoning tag, without brackets, for
	// ParsingThinkTags and two passes. If empty, <think> and <thinking>
	// are both read, and two passes write <think>.
	ThinkTag string
	// ThinkOpen says the chat template prints the reasoning opener
	// itself, so the output starts inside the reasoning.
	ThinkOpen bool
	// Temperature is sent when the client sets none.
	Temperature *float64
	// TwoPass caps the reasoning with two backend passes; see
	// [TwoPassMode].
	TwoPass TwoPassMode
	// MaxThinkingTokens bounds pass 1, the reasoning; MaxResponseTokens
	// pass 2, the answer. Zero means MaxTokens.
	MaxThinkingTokens, MaxResponseTokens int
	// BudgetMessage is appended to the reasoning when the budget closes
	// it: the model's last thought before it answers.
	BudgetMessage string
	// Continuation is how pass 2 continues the closed reasoning block.
	Continuation Continuation

	// mask hides every configured provider key in what a backend says;
	// New sets it (see [Provider.masker]).
	mask *masker
	// parsers keeps the provider's text parsers; New sets it.
	parsers *parserCache
	// headers are the whole header of every request to the provider,
	// for a stream and for a whole answer, shared read-only: a request
	// that adds one copies them first (see [Handler.send]). New sets
	// them.
	headers [2]http.Header
	// urls are the endpoints for a stream and for a whole answer, parsed
	// once (nil when they do not parse: the request then fails as it
	// would have); New sets them.
	urls [2]*url.URL
	// plain is set when the provider takes a plain Chat request as it
	// came ([plainProvider]); New sets it.
	plain bool
	// rt is the transport of the client New made for the provider, called
	// directly: Client.Do clones the headers for redirects the gateway
	// never follows. nil with a client from Config.Clients.
	rt http.RoundTripper
}

// Backend is the kind of server a provider is.
type Backend string

// The backend kinds of the config's provider_backend.
const (
	BackendOpenAI    Backend = "openai"
	BackendAnthropic Backend = "anthropic"
	BackendCompat    Backend = "openai_compat"
	BackendVLLM      Backend = "vllm_native"
	BackendLlamaCpp  Backend = "llamacpp"
	BackendOllama    Backend = "ollama"
)

// ParsingFormat says where a backend's output carries reasoning.
type ParsingFormat string

// The parsing formats of the config's parsing_format.
const (
	// ParsingReasoningField: the backend splits reasoning off itself
	// (reasoning_content, thinking blocks, Responses reasoning items).
	ParsingReasoningField ParsingFormat = "reasoning_field"
	// ParsingThinkTags: reasoning is in the text, in a think block.
	ParsingThinkTags ParsingFormat = "think_tags"
	// ParsingDirect: the model does not reason; all text is answer.
	ParsingDirect ParsingFormat = "direct_response"
)

// TwoPassMode says whether the gateway caps reasoning with two passes.
type TwoPassMode string

// The two-pass modes of the config's generation_config.two_pass.
const (
	// TwoPassOff (or empty): one pass.
	TwoPassOff TwoPassMode = "false"
	// TwoPassOn: pass 1 reasons up to MaxThinkingTokens, stopped at the
	// think closer; pass 2 continues the closed block with the answer.
	TwoPassOn TwoPassMode = "true"
	// TwoPassAuto: the backend's own exact budget where it has one (vLLM
	// thinking_token_budget, llama.cpp thinking_budget_tokens), two
	// passes otherwise.
	TwoPassAuto TwoPassMode = "auto"
)

// Continuation is how a backend is made to continue a trailing
// assistant message.
type Continuation string

// The continuations of the config's continuation.
const (
	// ContinueAuto picks by Backend and, where the server can say,
	// checks the template at start-up.
	ContinueAuto Continuation = "auto"
	// ContinueFinalMessage sends continue_final_message: true and
	// add_generation_prompt: false (vLLM, SGLang, TGI).
	ContinueFinalMessage Continuation = "continue_final_message"
	// ContinuePrefill sends the trailing assistant message as is
	// (llama.cpp, Anthropic).
	ContinuePrefill Continuation = "prefill"
	// ContinueNone: the backend cannot continue; two passes are refused.
	ContinueNone Continuation = "none"
)

func orDur(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// endpoint is the URL of p's model API: for Gemini, generateContent for
// a whole answer, streamGenerateContent for a stream; the other APIs say
// which in the body.
func (p *Provider) endpoint(whole bool) string {
	base := strings.TrimRight(p.BaseURL, "/")
	switch p.API {
	case APIMessages:
		return strings.TrimSuffix(base, "/v1") + "/v1/messages"
	case APIResponses:
		return base + "/responses"
	case APIGemini:
		u := geminiEndpoint(base, p.Model)
		if whole {
			u = strings.TrimSuffix(u, ":streamGenerateContent?alt=sse") + ":generateContent"
		}
		return u
	}
	return base + "/chat/completions"
}

// backendError is a backend's refusal: its status and body, which is
// read bounded and used only after redaction.
type backendError struct {
	status     int
	retryAfter time.Duration
	msg        string
	typ        string
}

func (e *backendError) Error() string { return fmt.Sprintf("backend answered %d", e.status) }

// errTimeout reports a backend that took longer than a timeout allows.
var errTimeout = errors.New("gateway: backend timed out")

// retryable reports a failure worth another attempt: the connection could
// not be made, or the backend said 429, 502, 503 or 504. A timeout is not
// retried: the next attempt would most likely wait as long.
func retryable(err error) bool {
	var be *backendError
	if errors.As(err, &be) {
		switch be.status {
		case 429, 502, 503, 504:
			return true
		}
		return false
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// The Accept headers of a request for a stream and for a whole answer,
// shared read-only.
var (
	acceptStream = []string{"text/event-stream"}
	acceptWhole  = []string{"application/json"}
)

// send makes one attempt at out: the response, with its body wrapped so
// that each read must come within the idle timeout. The wait for the
// response's first byte is bounded by the first-token timeout for a
// stream, by the total one only for a whole answer (see
// [Provider.FirstTokenTimeout]).
func (h *Handler) send(ctx context.Context, p *Provider, out *Outbound) (*http.Response, context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := backendRequest(ctx, p, out)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	var beta string
	if p.API == APIMessages {
		beta = betaFrom(ctx)
	}
	if beta != "" || traced(ctx) {
		// The header is shared by every request to p: this one gets
		// its own before it adds to it.
		req.Header = req.Header.Clone()
		injectTrace(ctx, req)
		if beta != "" {
			req.Header.Set("anthropic-beta", beta)
		}
	}
	total := orDur(p.TotalTimeout, DefaultTotalTimeout)
	first := orDur(p.FirstTokenTimeout, DefaultFirstTokenTimeout)
	if out.whole {
		// The first byte comes with the whole answer: only the total
		// timeout bounds the wait.
		first = 0
	}
	idle := orDur(p.IdleTimeout, DefaultIdleTimeout)
	var w *watch
	if total > 0 || first > 0 || idle > 0 {
		w = newWatch(cancel, total, first)
	}
	var resp *http.Response
	if p.rt != nil {
		resp, err = p.rt.RoundTrip(req)
	} else {
		resp, err = h.client(p).Do(req)
	}
	if w != nil {
		w.end()
		if werr := w.err("no response within", first); werr != nil {
			if resp != nil {
				resp.Body.Close()
			}
			cancel()
			return nil, nil, werr
		}
	}
	if err != nil {
		if w != nil {
			w.stop()
		}
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		// The error body is read under the total and idle timeouts too.
		if w != nil {
			resp.Body = &watchedBody{rc: resp.Body, w: w, idle: idle, next: idle}
		}
		defer resp.Body.Close()
		defer cancel()
		return nil, nil, readBackendError(resp, p)
	}
	// The headers came; the first token may still be far off: the first
	// read waits up to the first-token timeout, later ones the idle one.
	if w != nil {
		next := first
		if next <= 0 {
			next = idle
		}
		resp.Body = &watchedBody{rc: resp.Body, w: w, idle: idle, next: next}
	}
	return resp, cancel, nil
}

// backendRequest is the request that sends out to p: what
// http.NewRequestWithContext makes of the endpoint and body, but from the
// URL parsed once, with p's fixed headers.
func backendRequest(ctx context.Context, p *Provider, out *Outbound) (*http.Request, error) {
	i := 0
	if out.whole {
		i = 1
	}
	if p.urls[i] == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint(out.whole), bytes.NewReader(out.Body))
		if err == nil {
			req.Header = staticHeaders(p, out.whole)
		}
		return req, err
	}
	// A request with no URL or body costs no parsing; the URL parsed
	// once is copied into the one it made.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "", nil)
	if err != nil {
		return nil, err
	}
	*req.URL = *p.urls[i]
	req.Host = req.URL.Host
	if body := out.Body; len(body) > 0 {
		// io.NopCloser over a bytes.Reader, which the transport knows
		// for a body in memory: it writes it with the headers, in one
		// write, where any other reader gets a write of its own.
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		// The transport sends the body again when a kept-alive
		// connection turns out closed.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	// The header never changes: it is shared, not built per request,
	// since the transport only reads it.
	req.Header = p.headers[i]
	if req.Header == nil {
		req.Header = staticHeaders(p, out.whole)
	}
	return req, nil
}

// parseEndpoints sets p's endpoint URLs, as http.NewRequest parses them.
func parseEndpoints(p *Provider) {
	for i, whole := range []bool{false, true} {
		u, err := url.Parse(p.endpoint(whole))
		if err != nil {
			continue
		}
		u.Host = strings.TrimSuffix(u.Host, ":") // as NewRequest does
		p.urls[i] = u
	}
}

// staticHeaders are the headers of every request to p that asks for a
// stream, or for a whole answer when whole is true.
func staticHeaders(p *Provider, whole bool) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h["Accept"] = acceptStream
	if whole {
		h["Accept"] = acceptWhole
	}
	switch {
	case p.API == APIMessages:
		h.Set("anthropic-version", AnthropicVersion)
		if p.APIKey != "" {
			h.Set("x-api-key", p.APIKey)
		}
	case p.API == APIGemini:
		if p.APIKey != "" {
			h.Set("x-goog-api-key", p.APIKey)
		}
	case p.APIKey != "":
		h.Set("Authorization", "Bearer "+p.APIKey)
	}
	return h
}

func readBackendError(resp *http.Response, p *Provider) error {
	be := &backendError{status: resp.StatusCode}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n >= 0 {
			// Seconds beyond a day are as good as "never" here; the cap
			// keeps the multiplication from overflowing.
			be.retryAfter = time.Duration(min(n, 86400)) * time.Second
		} else if t, err := http.ParseTime(s); err == nil {
			be.retryAfter = max(time.Until(t), 0)
		}
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error *apiError `json:"error"`
	}
	if unmarshal(data, &e) == nil && e.Error != nil {
		be.msg = e.Error.Message
		be.typ = e.Error.Type
		if be.typ == "" && len(e.Error.Code) > 0 && e.Error.Code[0] == '"' {
			be.typ = strings.Trim(string(e.Error.Code), `"`)
		}
	}
	if be.msg == "" {
		be.msg = http.StatusText(resp.StatusCode)
	}
	// Only the message and type are kept, and both masked: the code,
	// param and other members of the body go nowhere.
	m := p.masker()
	be.msg, be.typ = m.String(be.msg), m.String(be.typ)
	return be
}

func (h *Handler) client(p *Provider) *http.Client {
	if c, ok := h.clients[p.Name]; ok {
		return c
	}
	return http.DefaultClient
}

func newClient(p *Provider) *http.Client {
	d := &net.Dialer{Timeout: orDur(p.ConnectTimeout, DefaultConnectTimeout)}
	if d.Timeout < 0 {
		d.Timeout = 0
	}
	t := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: d.DialContext,
		// One backend host per provider: its idle pool is sized to the
		// gateway's concurrency, so that a burst does not dial (and a
		// TLS backend does not shake hands) again for every request.
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     90 * time.Second,
		// A custom dialer turns HTTP/2 off unless asked: a backend that
		// offers it over TLS gets it.
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 0, // FirstTokenTimeout covers it
	}
	// A backend over plain HTTP (a vLLM, llama.cpp or Ollama server
	// beside the gateway) is called on the request's own goroutine:
	// net/http's transport hands each request and answer between three
	// goroutines, and at a few hundred requests a second those wake-ups
	// cost more than the gateway's own work (BENCHMARKS.md, session 22).
	// HTTPS and proxied requests take t.
	rt := direct.New(&direct.Config{Fallback: t, Dial: d.DialContext, Proxy: http.ProxyFromEnvironment,
		MaxIdlePerHost: t.MaxIdleConnsPerHost, IdleTimeout: t.IdleConnTimeout})
	return &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// backoff is the wait before attempt n (from 1): jittered exponential,
// or the backend's Retry-After when it gave one.
func backoff(n int, err error, p *Provider) (time.Duration, bool) {
	var be *backendError
	if errors.As(err, &be) && be.retryAfter > 0 {
		if be.retryAfter > orDur(p.MaxRetryAfter, DefaultMaxRetryAfter) {
			return 0, false
		}
		return be.retryAfter, true
	}
	base := 100 * time.Millisecond << min(n-1, 6)
	return base/2 + rand.N(base), true
}
