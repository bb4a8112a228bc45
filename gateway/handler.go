// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
	"go.opentelemetry.io/otel/trace"
)

// DefaultMaxRequestBytes bounds a client's request body when
// [Config.MaxRequestBytes] is zero.
const DefaultMaxRequestBytes = 8 << 20

// Config configures [New]. New copies it.
type Config struct {
	// Providers are the backends. Names must be unique.
	Providers []Provider
	// Models maps public model names to provider names. A provider's
	// own name is a model name too.
	Models map[string]string
	// ReasoningField is where Chat Completions responses carry
	// reasoning. If empty, ReasoningContent.
	ReasoningField ReasoningField
	// MaxRequestBytes bounds a request body. If zero,
	// DefaultMaxRequestBytes; negative, none.
	MaxRequestBytes int64
	// MaxEventBytes bounds one event of a backend's stream, and at four
	// times it a backend's whole answer (to a client that does not
	// stream). If zero, the SSE reader's default (4 MiB: 16 MiB for a
	// whole answer); negative, none.
	MaxEventBytes int
	// Logger receives a summary line per request at info level and its
	// detail at debug level. If nil, nothing is logged.
	Logger *slog.Logger
	// Metrics, when set, counts requests, latency, time to first token
	// and tokens; requests and tokens by principal too.
	Metrics *Metrics
	// MetricsKeyLabel adds the key id to the requests and tokens
	// counters: one series per key, so only where keys are few.
	MetricsKeyLabel bool
	// Clients replaces the HTTP client of a provider, by name (tests
	// use it to reach an in-process backend).
	Clients map[string]*http.Client
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
	// Observe, when set, is told of every request once it is answered
	// (the console's live feed). It runs on the request's goroutine: it
	// must be quick and must not block.
	// The observation names the request's principal and key (from its
	// context, see [server.IdentityFrom]) and its trace.
	Observe func(server.Observation)
	// TracerProvider, when set, traces every request: a span per request
	// and one per backend pass, following the OpenTelemetry GenAI
	// semantic conventions, children of the client's traceparent.
	TracerProvider trace.TracerProvider
	// Limiter counts the requests per minute of keys made at run time
	// (see server.Identity.Key). If nil, in memory: one process's count.
	Limiter kernel.Limiter
	// Meter counts keys' tokens per minute and budgets. If nil, in
	// memory: one process's count.
	Meter kernel.Meter
	// Prices price requests for keys' USD budgets, by public model name
	// else provider name; a model without one spends no dollars.
	Prices map[string]Price
	// PrincipalBudgets bound what each principal's requests spend, all
	// its keys and tokens together, in addition to each key's budget.
	PrincipalBudgets map[string]kernel.Budget
	// RefuseUnknownMembers answers 400 to a request member in no member
	// table (see [MemberTable]); by default it is dropped with a warning.
	RefuseUnknownMembers bool
	// Mediate, when set, puts the kernel between the model and every
	// tool call it makes (see [Mediation]).
	Mediate *Mediation
	// Audit, when set, records every model request answered for a model
	// served here (kernel.RecordModel), and is the parent of the records
	// of the calls the model made.
	Audit *kernel.AuditLog
	// CaptureContent puts the conversation — the client's request body
	// and the model's answer text, redacted — in each model record. By
	// default a record holds no content.
	CaptureContent bool
}

// Handler is the gateway's http.Handler: POST /v1/chat/completions,
// /v1/responses and /v1/messages in front of any provider, and GET
// /v1/models. It is safe for concurrent use.
type Handler struct {
	providers map[string]*Provider
	models    map[string]string
	public    []string
	clients   map[string]*http.Client
	cfg       Config
	mux       *http.ServeMux
	tracer    trace.Tracer // nil without tracing
	// access is the Logger's handler when it writes access lines
	// itself (found once here, not asserted for every request).
	access AccessHandler
	// schemas compiles the input schemas of the tools text models call,
	// to check their arguments.
	schemas *schema.Cache
	// keys counts what keys made at run time may do.
	keys *keyLimits
	// med is the mediation of tool calls; nil when off.
	med *mediation
	// lower caches tools' schemas lowered for the backends.
	lower *lowerCache
	// content masks the secrets of the content a model record keeps
	// (Config.CaptureContent); nil without it.
	content *redact.Redactor
	// slowStreams turns the same-API fast path off, and the skipping of
	// the text filter for a whole answer of plain text (tests compare).
	slowStreams bool
}

// New returns a Handler for cfg, or an error naming what is wrong with it.
func New(cfg *Config) (*Handler, error) {
	if cfg == nil || len(cfg.Providers) == 0 {
		return nil, errors.New("gateway: no providers")
	}
	h := &Handler{providers: map[string]*Provider{}, models: map[string]string{}, clients: map[string]*http.Client{}, cfg: *cfg, schemas: schema.NewCache(nil), lower: newLowerCache(),
		keys: &keyLimits{limiter: cfg.Limiter, meter: cfg.Meter, prices: cfg.Prices, budgets: cfg.PrincipalBudgets, flying: map[string]int{}}}
	if cfg.CaptureContent {
		h.content = redact.Default()
	}
	if h.keys.limiter == nil {
		h.keys.limiter = kernel.NewMemoryLimiter()
	}
	if h.keys.meter == nil {
		h.keys.meter = kernel.NewMemoryMeter()
	}
	for i := range cfg.Providers {
		p := cfg.Providers[i]
		if p.Name == "" {
			return nil, fmt.Errorf("gateway: provider %d has no name", i)
		}
		if _, dup := h.providers[p.Name]; dup {
			return nil, fmt.Errorf("gateway: provider %q defined twice", p.Name)
		}
		switch p.API {
		case APIChat, APIMessages, APIResponses, APIGemini:
		default:
			return nil, fmt.Errorf("gateway: provider %q: unknown api %q", p.Name, p.API)
		}
		if p.BaseURL == "" {
			return nil, fmt.Errorf("gateway: provider %q: no base URL", p.Name)
		}
		if err := checkTextModel(&p); err != nil {
			return nil, fmt.Errorf("gateway: provider %q: %w", p.Name, err)
		}
		p.parsers = newParserCache()
		p.headers = [2]http.Header{staticHeaders(&p, false), staticHeaders(&p, true)}
		parseEndpoints(&p)
		p.plain = plainProvider(&p)
		h.providers[p.Name] = &p
		if c := cfg.Clients[p.Name]; c != nil {
			h.clients[p.Name] = c
		} else {
			c := newClient(&p)
			h.clients[p.Name] = c
			// Client.Do sends a URL's user and password as basic
			// authentication; the transport alone does not.
			if (p.urls[0] == nil || p.urls[0].User == nil) && (p.urls[1] == nil || p.urls[1].User == nil) {
				p.rt = c.Transport
			}
		}
	}
	for _, p := range h.providers {
		for _, f := range p.Fallbacks {
			if _, ok := h.providers[f]; !ok {
				return nil, fmt.Errorf("gateway: provider %q: unknown fallback %q", p.Name, f)
			}
		}
	}
	// Any backend's words are masked for every provider's key, not only
	// its own: a fallback may have been told another's by its operator.
	keys := make([]string, 0, len(h.providers))
	for _, p := range h.providers {
		keys = append(keys, p.APIKey)
	}
	mask := newMasker(keys...)
	for _, p := range h.providers {
		p.mask = mask
	}
	for name, prov := range cfg.Models {
		if _, ok := h.providers[prov]; !ok {
			return nil, fmt.Errorf("gateway: model %q: unknown provider %q", name, prov)
		}
		h.models[name] = prov
	}
	for name := range h.providers {
		if _, ok := h.models[name]; !ok {
			h.models[name] = name
		}
	}
	for name := range h.models {
		h.public = append(h.public, name)
	}
	sort.Strings(h.public)
	if h.cfg.ReasoningField == "" {
		h.cfg.ReasoningField = ReasoningContent
	}
	if h.cfg.MaxRequestBytes == 0 {
		h.cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if h.cfg.Now == nil {
		h.cfg.Now = time.Now
	}
	if cfg.TracerProvider != nil {
		h.tracer = cfg.TracerProvider.Tracer(tracerName)
	}
	if cfg.Mediate != nil {
		md, err := newMediation(cfg.Mediate)
		if err != nil {
			return nil, err
		}
		h.med = md
	}
	h.mux = http.NewServeMux()
	for _, rt := range modelRoutes {
		h.mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, rt.front) })
	}
	h.mux.HandleFunc("GET /v1/models", h.listModels)
	h.geminiRoutes()
	h.mux.HandleFunc("POST /generate", h.generate)
	if h.cfg.Logger != nil {
		h.access, _ = h.cfg.Logger.Handler().(AccessHandler)
	}
	return h, nil
}

// Close closes the connections to the MCP servers requests named.
func (h *Handler) Close() {
	if h.med != nil && h.med.pool != nil {
		h.med.pool.Close()
	}
}

// modelRoutes are the routes of the model requests, the gateway's own
// traffic.
var modelRoutes = [...]struct {
	pattern, path string
	front         API
}{
	{"POST /v1/chat/completions", "/v1/chat/completions", APIChat},
	{"POST /v1/responses", "/v1/responses", APIResponses},
	{"POST /v1/messages", "/v1/messages", APIMessages},
}

// ServeHTTP serves the gateway's routes. A model request whose path is
// one of modelRoutes' as it stands is served without the mux, which
// would find the same route (its pattern has no host, no wildcard and
// no trailing slash, and a path that needs no cleaning redirects
// nowhere) but walk its tree to do it: at a few hundred requests a
// second, when its code and data are cold, the walk was a twentieth
// of the handler's time.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.RawPath == "" {
		for i := range modelRoutes {
			if rt := &modelRoutes[i]; r.URL.Path == rt.path {
				r.Pattern = rt.pattern
				h.serve(w, r, rt.front)
				return
			}
		}
	}
	h.mux.ServeHTTP(w, r)
}

// Models returns the public model names, sorted.
func (h *Handler) Models() []string { return append([]string(nil), h.public...) }

func (h *Handler) listModels(w http.ResponseWriter, r *http.Request) {
	if googleKey(r) {
		h.listGeminiModels(w, r)
		return
	}
	b := []byte(`{"object":"list","data":[`)
	for i, name := range h.public {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonStr(append(b, `{"id":`...), name)
		b = append(b, `,"object":"model","created":0,"owned_by":"toolgate"}`...)
	}
	b = append(b, "]}"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// caller is who r acts for: the identity the server put in its context,
// or "anonymous" for a Handler mounted without one.
func caller(r *http.Request) server.Identity {
	if id, ok := server.IdentityFrom(r.Context()); ok {
		return id
	}
	return server.Identity{Principal: kernel.Principal{ID: "anonymous"}, Anonymous: true}
}

// Refuse writes a refusal of the server's (401, 403, 429) in the error
// shape of the front door r is for: Anthropic's on /v1/messages,
// Google's on the Gemini routes, OpenAI's elsewhere. Give it to the
// server as the gateway routes' [server.RouteAuth.Refuse].
func Refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	front := APIChat
	if strings.HasPrefix(r.URL.Path, "/v1/messages") {
		front = APIMessages
	} else if geminiPath(r) {
		front = APIGemini
	}
	writeError(w, front, status, errorType(front, status), msg)
}

// shuttingDown reports whether the server cancelled ctx's request to
// shut down, rather than the client going away.
func shuttingDown(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), server.ErrShutdown)
}

// shutdownMessage is what a client whose request the shutdown cut is told.
const shutdownMessage = "the server is shutting down; retry the request"

// writeError writes an error body in the front door's own shape.
func writeError(w http.ResponseWriter, api API, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
	}
	w.WriteHeader(status)
	var b []byte
	if api == APIMessages {
		b = messagesError(&BackendError{Type: typ, Message: msg})
	} else if api == APIGemini {
		b = geminiErrorBody(status, msg)
	} else {
		b = jsonStr([]byte(`{"error":{"message":`), msg)
		b = jsonStr(append(b, `,"type":`...), typ)
		b = append(b, `,"param":null,"code":null}}`...)
	}
	w.Write(b)
}

func errorType(api API, status int) string {
	switch {
	case status == 400 || status == 413:
		return "invalid_request_error"
	case status == 401:
		return "authentication_error"
	case status == 403:
		return "permission_error"
	case status == 404:
		return "not_found_error"
	case status == 429:
		return "rate_limit_error"
	case status == 529 || status == 503:
		if api == APIMessages {
			return "overloaded_error"
		}
	}
	return "api_error"
}

// served is what one request did, for the log line.
type served struct {
	front    API
	who      server.Identity
	model    string
	known    bool // the model is served here
	provider string
	status   int
	attempts int
	err      error
	start    time.Time
	ttft     time.Duration
	usage    Usage
	warnings int
	finish   Finish
	backend  Backend
	span     trace.Span // nil without tracing
	// respModel is the model the backend named in its answer, else the
	// one requested of it; reported, that it reported an error in its
	// stream.
	respModel string
	reported  bool
	audited   bool       // its model record is committed (commitRequest)
	pass      trace.Span // the open backend pass's; nil without tracing
	// reqID names the request in the audit log ("" without one);
	// clientTools are the tools the client declared, without those
	// the gateway offers beside them.
	reqID       string
	clientTools []tool.Definition
	// extraServed are the tools of the MCP servers the request named.
	extraServed map[string]*ServedTool
	// calls are the calls the model made, as the client saw them, for
	// the model record; body and answer its content, kept only with
	// Config.CaptureContent.
	calls  callNotes
	body   []byte
	answer []byte
	// whole is set once a non-streaming answer is written whole: serve
	// flushes it to the client before the request is logged.
	whole bool
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, front API) {
	s := &served{front: front, start: h.cfg.Now()}
	defer h.log(s)
	r, body, ok := h.begin(w, r, s)
	if !ok {
		return
	}
	req, err := h.decode(front, body)
	if err != nil {
		s.err = err
		h.refuse(w, front, err, s)
		return
	}
	s.model = req.Model
	prov, ok := h.models[req.Model]
	s.known = ok
	if !ok {
		s.status = http.StatusNotFound
		writeError(w, front, s.status, "not_found_error", fmt.Sprintf("model %q is not served here", clip(req.Model)))
		return
	}
	release, ok := h.admit(w, r, front, req, h.providers[prov], len(body), s)
	if !ok {
		return
	}
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	if h.cfg.Audit != nil || h.med != nil {
		s.reqID = newRequestID()
	}
	if h.med != nil {
		s.clientTools = req.Tools
		req = h.med.offer(req)
		var err error
		if req, err = h.med.offerServers(r.Context(), req, s); err != nil {
			s.err = err
			h.refuse(w, front, err, s)
			return
		}
	}
	if front == APIMessages {
		r = withBeta(r)
	}
	h.answer(w, r, front, req, h.providers[prov], s)
	// The key's reservations are settled and its slot freed before the
	// client has its answer, so that a client that asks again at once
	// finds them as this request left them; the gateway's own
	// bookkeeping (the model record, observers, metrics, the log line)
	// is not the client's to wait for.
	release()
	released = true
	if s.whole {
		_ = http.NewResponseController(w).Flush()
	}
}

// decode reads a client's request: a plain Chat request only as far as
// the gateway reads it before it is written for a backend (see
// [plainChat]), any other whole.
func (h *Handler) decode(front API, body []byte) (*Request, error) {
	if front != APIChat || h.med != nil || h.slowStreams {
		return DecodeRequest(front, body, -1)
	}
	if err := checkBody(body, -1); err != nil {
		return nil, err
	}
	if r := decodePlainChat(body); r != nil {
		return r, nil
	}
	return decodeChecked(front, body)
}

// begin starts a request's span, authenticates it and reads its body,
// answering the client itself when it cannot go on.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, s *served) (*http.Request, []byte, bool) {
	s.who = caller(r)
	r = h.startSpan(r, s)
	body, ok := h.readBody(w, r, s.front, s)
	if h.cfg.CaptureContent {
		s.body = body
	}
	return r, body, ok
}

// readBody reads a request body within the limit, answering the client
// itself when it cannot.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, front API, s *served) ([]byte, bool) {
	var body []byte
	var err error
	// A body that says its length is read into one buffer of that size
	// (an agent's turn is often hundreds of KiB; io.ReadAll would grow its
	// buffer a dozen times). A client's length is a claim: the buffer
	// reserved for it is at most the limit, or maxPresize without one.
	size := int64(512)
	if n := r.ContentLength; n > 0 {
		size = min(n+1, maxPresize)
		if m := h.cfg.MaxRequestBytes; m > 0 {
			size = min(size, m+1)
		}
	}
	if h.cfg.MaxRequestBytes > 0 {
		body, err = readAllInto(http.MaxBytesReader(w, r.Body, h.cfg.MaxRequestBytes), make([]byte, 0, size))
	} else {
		body, err = readAllInto(r.Body, make([]byte, 0, size))
	}
	if err != nil {
		var mbe *http.MaxBytesError
		s.status = http.StatusBadRequest
		msg := "the request body could not be read"
		if errors.As(err, &mbe) {
			s.status, msg = http.StatusRequestEntityTooLarge, "request body too large"
		}
		writeError(w, front, s.status, errorType(front, s.status), msg)
		return nil, false
	}
	return body, true
}

// answer answers req from provider first, then its fallbacks.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, front API, req *Request, first *Provider, s *served) {
	chain := []*Provider{first}
	for _, f := range first.Fallbacks {
		chain = append(chain, h.providers[f])
	}
	var lastErr error
	for _, p := range chain {
		s.provider = p.Name
		out, err := h.encodeFor(req, p)
		if err != nil {
			lastErr = err
			var re *RequestError
			if errors.As(err, &re) && p == chain[len(chain)-1] {
				h.refuse(w, front, err, s)
				return
			}
			continue
		}
		s.backend = p.Backend
		pctx := h.passSpan(r.Context(), p, 1, s)
		resp, cancel, err := h.attempt(pctx, p, out, s)
		if err != nil {
			h.endPass(s, p, nil, err)
			lastErr = err
			if r.Context().Err() != nil {
				if shuttingDown(r.Context()) {
					s.status = http.StatusServiceUnavailable
					writeError(w, front, s.status, errorType(front, s.status), shutdownMessage)
				}
				return // the client went away
			}
			continue
		}
		h.relay(w, r, front, req, p, out, resp, cancel, s)
		if s.pass != nil {
			// One pass answered the turn; two passes end their own.
			h.endPass(s, p, &passAnswer{model: s.respModel, usage: s.usage, finish: s.finish, reported: s.reported}, s.err)
		}
		return
	}
	s.err = lastErr
	h.backendFailed(w, front, lastErr, s)
}

// attempt sends out to p, retrying what is worth retrying.
func (h *Handler) attempt(ctx context.Context, p *Provider, out *Outbound, s *served) (*http.Response, context.CancelFunc, error) {
	retries := p.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	for n := 0; ; n++ {
		s.attempts++
		if h.cfg.Metrics != nil {
			h.cfg.Metrics.attempt(p.Name)
		}
		resp, cancel, err := h.send(ctx, p, out)
		if err == nil {
			return resp, cancel, nil
		}
		if n >= retries || !retryable(err) {
			return nil, nil, err
		}
		wait, ok := backoff(n+1, err, p)
		if !ok {
			return nil, nil, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, ctx.Err()
		case <-t.C:
		}
	}
}

func (h *Handler) refuse(w http.ResponseWriter, front API, err error, s *served) {
	var re *RequestError
	s.status = http.StatusBadRequest
	msg := "invalid request"
	if errors.As(err, &re) {
		s.status = re.Status
		msg = re.Error()
	}
	writeError(w, front, s.status, errorType(front, s.status), msg)
}

// backendFailed answers a client whose backends all failed before the
// first byte: the backend's status where it gave one (a 4xx is the
// client's to fix), 504 for a timeout, 502 otherwise.
func (h *Handler) backendFailed(w http.ResponseWriter, front API, err error, s *served) {
	var be *backendError
	status, msg := http.StatusBadGateway, "the model backend could not be reached"
	switch {
	case errors.As(err, &be) && (be.status == http.StatusUnauthorized || be.status == http.StatusForbidden):
		// The backend refused the gateway's own key: the client's
		// credentials are not at fault, and a 401 would count against it.
		status, msg = http.StatusBadGateway, "the model backend refused the gateway's credentials"
	case errors.As(err, &be):
		status, msg = be.status, be.msg
		if status < 400 || status > 599 {
			status = http.StatusBadGateway
		}
	case errors.Is(err, errTimeout) || errors.Is(err, context.DeadlineExceeded):
		status, msg = http.StatusGatewayTimeout, "the model backend did not answer in time"
	}
	s.status = status
	writeError(w, front, status, errorType(front, status), msg)
}

// relay reads the backend's stream and answers the client: as a stream
// when it asked for one, else as one body once the turn is complete.
func (h *Handler) relay(w http.ResponseWriter, r *http.Request, front API, req *Request, p *Provider, out *Outbound, resp *http.Response, cancel context.CancelFunc, s *served) {
	defer cancel()
	defer resp.Body.Close()
	opts := &EncodeOptions{Model: req.Model, Created: h.cfg.Now().Unix(), IncludeUsage: req.IncludeUsage, ReasoningField: h.cfg.ReasoningField}
	opts.gemini = req.gemini
	opts.origins = req.front.origins
	s.usage = unknownUsage()
	s.respModel = p.Model
	t := &turn{h: h, req: req, p: p, out: out, s: s, warns: out.Warnings[:len(out.Warnings):len(out.Warnings)]}
	defer func() { s.warnings = len(t.warns) }()
	if !req.Stream {
		var tn *Turn
		var err error
		if t.wholeSame() {
			tn, err = t.readWholeSame(resp)
		}
		switch {
		case tn == nil:
			col := NewCollector()
			err = t.run(r.Context(), resp, func(e Event) error {
				switch e.Kind {
				case EventStart:
					if e.Model != "" {
						s.respModel = e.Model
					}
				case EventUsage:
					s.usage.merge(*e.Usage)
				}
				e = p.masker().Event(e)
				h.note(s, &e)
				return col.Add(e)
			}, func() error { return nil })
			tn = col.Turn()
		case err == nil:
			// What the emit above notes of the same answer's events.
			if tn.Model != "" {
				s.respModel = tn.Model
			}
			s.usage.merge(tn.Usage)
			if tn.Text != "" {
				h.note(s, &Event{Kind: EventText, Text: tn.Text})
			}
			for i := range tn.Calls {
				h.noteCall(s, &tn.Calls[i])
			}
		}
		s.finish = tn.Finish
		if err != nil || tn.Err != nil {
			s.err = err
			if tn.Err != nil {
				s.reported = true
				s.status = http.StatusBadGateway
				writeError(w, front, s.status, errorType(front, s.status), redactKey(tn.Err.Message, p))
				return
			}
			if shuttingDown(r.Context()) {
				s.status = http.StatusServiceUnavailable
				writeError(w, front, s.status, errorType(front, s.status), shutdownMessage)
				return
			}
			h.backendFailed(w, front, answerFailure(err), s)
			return
		}
		b, _ := EncodeResponse(front, tn, opts)
		if len(t.warns) > 0 {
			w.Header().Set("x-toolgate-warnings", redactKey(warningsHeader(t.warns), p))
		}
		s.status = http.StatusOK
		if !h.commitRequest(r.Context(), s) {
			s.status = http.StatusServiceUnavailable
			writeError(w, front, s.status, errorType(front, s.status), msgModelNotRecorded)
			return
		}
		hdr := w.Header()
		hdr["Content-Type"] = headerJSON
		hdr["Content-Length"] = []string{strconv.Itoa(len(b))}
		w.Write(b)
		s.whole = true
		return
	}
	hdr := w.Header()
	hdr["Content-Type"] = headerEventStream
	hdr["Cache-Control"] = headerNoCache
	hdr["X-Accel-Buffering"] = headerNo
	// The warnings of a streamed answer are known only at its end: what
	// lowering changed goes in the header, and the whole list (with what
	// the text parser salvaged, dropped or found invalid) in a trailer.
	if len(out.Warnings) > 0 {
		w.Header().Set("x-toolgate-warnings", redactKey(warningsHeader(out.Warnings), p))
	}
	hdr["Trailer"] = headerTrailer
	w.WriteHeader(http.StatusOK)
	s.status = http.StatusOK
	rc := http.NewResponseController(w)
	// Events are gathered and written to w in one piece at each flush:
	// net/http's own buffer holds 2 KiB and its connection's 4 KiB, so a
	// batch of events read in one go would otherwise leave in a write(2)
	// per 2–4 KiB.
	bw := &batchWriter{w: w}
	defer bw.release()
	flush := func() error {
		if err := bw.Flush(); err != nil {
			return err
		}
		return rc.Flush()
	}
	enc, _ := NewStreamEncoder(front, sse.NewWriter(bw), opts)
	err := t.stream(r.Context(), resp, enc, func(e Event) error {
		if s.ttft == 0 {
			s.ttft = h.cfg.Now().Sub(s.start)
		}
		switch e.Kind {
		case EventStart:
			if e.Model != "" {
				s.respModel = e.Model
			}
		case EventUsage:
			s.usage.merge(*e.Usage)
		case EventFinish:
			s.finish = e.Finish
			// The final event goes out once the request is recorded.
			if !h.commitRequest(r.Context(), s) {
				return enc.Encode(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: msgModelNotRecorded}})
			}
		case EventError:
			s.reported = true
		}
		e = p.masker().Event(e)
		h.note(s, &e)
		return enc.Encode(e)
	}, flush)
	switch {
	case err != nil && shuttingDown(r.Context()):
		// The server's grace period ended with the answer still
		// streaming: the client gets the API's error event, not a cut.
		s.err = err
		enc.Encode(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: shutdownMessage}})
	case err != nil && r.Context().Err() == nil:
		// After the first byte a failure ends the stream with the front
		// door's error event, never a silent truncation.
		s.err = err
		enc.Encode(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: "the model backend's stream failed: " + failureText(err)}})
	}
	enc.Close()
	if len(t.warns) > 0 {
		w.Header().Set("X-Toolgate-Warnings", redactKey(warningsHeader(t.warns), p))
	}
	flush()
}

// The values of the headers of every answer, shared rather than made for
// each: net/http only reads them, and a handler that adds a value to one
// (Header.Add) appends to a slice without room, which copies it.
var (
	headerJSON        = []string{"application/json"}
	headerEventStream = []string{"text/event-stream"}
	headerNoCache     = []string{"no-cache"}
	headerNo          = []string{"no"}
	headerTrailer     = []string{"X-Toolgate-Warnings"}
)

// batchBytes is the most a batchWriter gathers before it writes: the
// events of one read of the backend (streamReadBuffer), rewritten, fit.
const batchBytes = 32 << 10

// batchBuffers are the buffers of batchWriters while a batch is open.
var batchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, batchBytes); return &b }}

// batchWriter gathers a streamed answer's writes and writes them to w in
// one piece at Flush, or when batchBytes would be passed. It holds a
// buffer only while a batch is open: a stream waiting on its backend
// (flushed before every read) holds none, however many are open.
type batchWriter struct {
	w   io.Writer
	buf *[]byte // nil between batches
}

func (b *batchWriter) Write(p []byte) (int, error) {
	if b.buf == nil {
		b.buf = batchBuffers.Get().(*[]byte)
	}
	buf := *b.buf
	if len(buf)+len(p) > cap(buf) {
		if len(buf) > 0 {
			_, err := b.w.Write(buf)
			buf = buf[:0]
			*b.buf = buf
			if err != nil {
				return 0, err
			}
		}
		if len(p) > cap(buf) {
			return b.w.Write(p)
		}
	}
	*b.buf = append(buf, p...)
	return len(p), nil
}

// Flush writes what is gathered and gives the buffer back.
func (b *batchWriter) Flush() error {
	if b.buf == nil {
		return nil
	}
	var err error
	if buf := *b.buf; len(buf) > 0 {
		_, err = b.w.Write(buf)
	}
	b.release()
	return err
}

// release gives the buffer back, dropping what it holds.
func (b *batchWriter) release() {
	if b.buf != nil {
		*b.buf = (*b.buf)[:0]
		batchBuffers.Put(b.buf)
		b.buf = nil
	}
}

func streamFailure(err error) error {
	if errors.Is(err, errTimeout) {
		return err
	}
	return &backendError{status: http.StatusBadGateway, msg: "the model backend's stream failed: " + failureText(err)}
}

// failureText says what went wrong in words that hold nothing of the
// stream: for a backend that answered with an error status, the status
// (its message is the client's, after redaction).
func failureText(err error) string {
	var be *backendError
	switch {
	case errors.As(err, &be):
		return "the model backend answered " + strconv.Itoa(be.status)
	case errors.Is(err, errTimeout):
		return "timed out"
	case errors.Is(err, ErrIncomplete), errors.Is(err, sse.ErrTruncated):
		return "it ended early"
	case errors.Is(err, sse.ErrTooLarge):
		return "an event was too large"
	case errors.Is(err, ErrMalformed):
		return "it sent an event that could not be read"
	}
	return "the connection failed"
}

// redactKey masks every configured provider key, in any of its forms, in
// msg (see [masker]).
func redactKey(msg string, p *Provider) string {
	return p.masker().String(msg)
}

// maxWarningsHeader bounds the x-toolgate-warnings value: clients and
// proxies refuse larger headers, and a model's output can hold thousands
// of salvaged calls.
const maxWarningsHeader = 8 << 10

// warningsHeader is the x-toolgate-warnings value: the warnings as a JSON
// array, ASCII only so that it is a valid header value, at most
// maxWarningsHeader bytes (the first warnings, then one saying how many
// were left out).
func warningsHeader(ws []tool.Warning) string {
	for n := len(ws); ; n = n * 3 / 4 {
		list := ws[:n]
		if n < len(ws) {
			list = append(list[:n:n], tool.Warning{Code: "warnings-truncated", Message: fmt.Sprintf("%d more warnings left out of this header", len(ws)-n)})
		}
		if h := asciiJSON(list); len(h) <= maxWarningsHeader || n == 0 {
			return h
		}
	}
}

func asciiJSON(ws []tool.Warning) string {
	b, _ := json.Marshal(ws)
	var sb strings.Builder
	for _, r := range string(b) {
		switch {
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&sb, `\u%04x\u%04x`, r1, r2)
		case r < 0x20 || r > 0x7e:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func (h *Handler) log(s *served) {
	d := h.cfg.Now().Sub(s.start)
	h.endSpan(s)
	if s.reqID != "" && h.cfg.Audit != nil {
		h.auditRequest(s)
	}
	if h.cfg.Observe != nil {
		h.observe(s, d)
	}
	if h.cfg.Metrics != nil {
		h.cfg.Metrics.observe(s, d, h.cfg.MetricsKeyLabel)
	}
	if h.cfg.Logger == nil {
		return
	}
	model := s.model
	if !s.known {
		model = unknownModel
	}
	// The record is built here rather than by Logger.Info, which asks
	// the runtime for the caller's PC on every call (no handler the
	// gateway is given reports the source), with typed attributes, which
	// box nothing.
	if lh := h.cfg.Logger.Handler(); lh.Enabled(context.Background(), slog.LevelInfo) {
		a := AccessLine{Time: time.Now(), Principal: s.who.Principal.ID, Key: s.who.KeyID, Front: string(s.front),
			Model: model, Provider: s.provider, Status: s.status, Duration: d}
		if s.err != nil {
			a.Error = failureText(s.err)
		}
		if h.access != nil {
			_ = h.access.HandleAccess(context.Background(), a)
		} else {
			_ = lh.Handle(context.Background(), a.Record())
		}
	}
	if h.cfg.Logger.Enabled(context.Background(), slog.LevelDebug) {
		h.cfg.Logger.Debug("gateway request detail", "principal", s.who.Principal.ID, "front", string(s.front), "model", model, "provider", s.provider,
			"attempts", s.attempts, "ttft", s.ttft, "warnings", s.warnings,
			"input_tokens", s.usage.InputTokens, "output_tokens", s.usage.OutputTokens, "reasoning_tokens", s.usage.ReasoningTokens)
	}
}
