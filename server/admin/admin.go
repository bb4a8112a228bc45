// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package admin is the admin API of toolgate serve, under /admin/v1/:
// the model gateway's keys, made, listed, shown and revoked at run time,
// and what they spent. Its OpenAPI document ([OpenAPI], served at
// /admin/v1/openapi.yaml) describes every operation, so that `toolgate
// openapi tools` turns the API into tools an agent may call.
//
// Every request needs a bearer token or key whose principal has the
// admin role; the server authenticates it ([Handler.Route]).
//
//	h, _ := admin.New(&admin.Config{Keys: keys, Spend: spend})
//	srv, _ := server.New(&server.Config{Auth: auth, Routes: []server.Route{h.Route()}})
package admin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// OpenAPI is the admin API's OpenAPI 3.0 document.
//
//go:embed openapi.yaml
var OpenAPI []byte

// maxBody bounds a request body.
const maxBody = 16 << 10

// Config configures [New].
type Config struct {
	// Keys is the key store. Required.
	Keys kernel.KeyStore
	// Spend, when set, answers /admin/v1/spend.
	Spend kernel.SpendStore
	// Role is the role a caller needs. If empty, admin.
	Role string
	// Known reports whether a key may be made for a principal id. If
	// nil, any non-empty id.
	Known func(id string) bool
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// Handler serves the admin API. It is safe for concurrent use.
type Handler struct {
	cfg Config
	mux *http.ServeMux
}

// New returns the admin API over cfg.
func New(cfg *Config) (*Handler, error) {
	if cfg == nil || cfg.Keys == nil {
		return nil, errors.New("admin: a key store is required")
	}
	h := &Handler{cfg: *cfg, mux: http.NewServeMux()}
	if h.cfg.Role == "" {
		h.cfg.Role = "admin"
	}
	if h.cfg.Known == nil {
		h.cfg.Known = func(id string) bool { return id != "" }
	}
	if h.cfg.Now == nil {
		h.cfg.Now = time.Now
	}
	h.mux.HandleFunc("GET /admin/v1/keys", h.list)
	h.mux.HandleFunc("POST /admin/v1/keys", h.create)
	h.mux.HandleFunc("GET /admin/v1/keys/{id}", h.show)
	h.mux.HandleFunc("DELETE /admin/v1/keys/{id}", h.revoke)
	h.mux.HandleFunc("GET /admin/v1/spend", h.spend)
	h.mux.HandleFunc("GET /admin/v1/openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(OpenAPI)
	})
	return h, nil
}

// Route is the API's route on the server: bearer tokens and keys, no
// anonymous caller, refusals in JSON.
func (h *Handler) Route() server.Route {
	return server.Route{Pattern: "/admin/v1/", Handler: h, RouteAuth: server.RouteAuth{Accept: server.Bearer,
		Refuse: func(w http.ResponseWriter, _ *http.Request, status int, msg string) { writeError(w, status, msg) }}}
}

// ServeHTTP serves the API to a caller with the role.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, ok := server.PrincipalFrom(r.Context())
	if !ok {
		writeError(w, http.StatusUnauthorized, "authentication required")
		return
	}
	if !p.HasRole(h.cfg.Role) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("the admin API needs the %s role", h.cfg.Role))
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.mux.ServeHTTP(w, r)
}

// KeyView is a key as the API (and toolgate keys) shows it: no hash,
// its budget's period as a span (1d, 30d).
type KeyView struct {
	ID          string            `json:"id"`
	Principal   string            `json:"principal"`
	Models      []string          `json:"models,omitempty"`
	RPM         int               `json:"rpm,omitempty"`
	TPM         int64             `json:"tpm,omitempty"`
	MaxParallel int               `json:"max_parallel,omitempty"`
	Budget      *BudgetView       `json:"budget,omitempty"`
	Expires     *time.Time        `json:"expires,omitempty"`
	Created     time.Time         `json:"created"`
	Revoked     *time.Time        `json:"revoked,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

// BudgetView is a key's budget as the API shows it.
type BudgetView struct {
	USD    float64 `json:"usd,omitempty"`
	Tokens int64   `json:"tokens,omitempty"`
	Period string  `json:"period,omitempty"`
}

// View is k as the API shows it.
func View(k *kernel.Key) KeyView {
	v := KeyView{ID: k.ID, Principal: k.Principal, Models: k.Models, RPM: k.RPM, TPM: k.TPM, MaxParallel: k.MaxParallel, Created: k.Created, Metadata: k.Metadata}
	if b := k.Budget; b.USD > 0 || b.Tokens > 0 {
		v.Budget = &BudgetView{USD: b.USD, Tokens: b.Tokens, Period: kernel.FormatSpan(b.Period)}
	}
	if !k.Expires.IsZero() {
		v.Expires = &k.Expires
	}
	if !k.Revoked.IsZero() {
		v.Revoked = &k.Revoked
	}
	return v
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	keys, err := h.cfg.Keys.Keys(r.Context())
	if err != nil {
		storeError(w, err)
		return
	}
	out := make([]KeyView, 0, len(keys))
	for i := range keys {
		out = append(out, View(&keys[i]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": out})
}

func (h *Handler) show(w http.ResponseWriter, r *http.Request) {
	k, err := h.cfg.Keys.KeyByID(r.Context(), r.PathValue("id"))
	if err != nil {
		storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, View(k))
}

func (h *Handler) revoke(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := h.cfg.Keys.RevokeKey(r.Context(), id, h.cfg.Now()); err != nil {
		storeError(w, err)
		return
	}
	k, err := h.cfg.Keys.KeyByID(r.Context(), id)
	if err != nil {
		storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, View(k))
}

// newKey is the body of POST /admin/v1/keys.
type newKey struct {
	Principal   string            `json:"principal"`
	Models      []string          `json:"models"`
	RPM         int               `json:"rpm"`
	TPM         int64             `json:"tpm"`
	MaxParallel int               `json:"max_parallel"`
	Budget      *BudgetView       `json:"budget"`
	Expires     string            `json:"expires"`
	Metadata    map[string]string `json:"metadata"`
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var in newKey
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "the body is not a key: "+decodeProblem(err))
		return
	}
	if !h.cfg.Known(in.Principal) {
		writeError(w, http.StatusBadRequest, "principal: not a principal of this server")
		return
	}
	secret, k := kernel.NewKey(in.Principal)
	k.Models, k.RPM, k.TPM, k.MaxParallel, k.Metadata = in.Models, in.RPM, in.TPM, in.MaxParallel, in.Metadata
	if in.Budget != nil {
		k.Budget = kernel.Budget{USD: in.Budget.USD, Tokens: in.Budget.Tokens}
		if in.Budget.Period != "" {
			if k.Budget.Period, err = kernel.ParseSpan(in.Budget.Period); err != nil {
				writeError(w, http.StatusBadRequest, "budget.period: "+err.Error())
				return
			}
		}
	}
	if in.Expires != "" {
		if k.Expires, err = kernel.ParseExpiry(in.Expires, k.Created); err != nil {
			writeError(w, http.StatusBadRequest, "expires: "+err.Error())
			return
		}
	}
	if err := k.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := h.cfg.Keys.CreateKey(r.Context(), k); err != nil {
		storeError(w, err)
		return
	}
	v := View(k)
	out, _ := json.Marshal(v)
	secretJSON, _ := json.Marshal(secret)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write(append(append([]byte(`{"key":`), secretJSON...), append([]byte(","), out[1:]...)...))
}

// spendGroups names the groups of /admin/v1/spend.
var spendGroups = map[string]func(*kernel.Spend) string{
	"key":       func(s *kernel.Spend) string { return s.KeyID },
	"principal": func(s *kernel.Spend) string { return s.Principal },
	"model":     func(s *kernel.Spend) string { return s.Model },
	"provider":  func(s *kernel.Spend) string { return s.Provider },
	"day":       func(s *kernel.Spend) string { return s.Day.Format(time.DateOnly) },
}

func (h *Handler) spend(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Spend == nil {
		writeError(w, http.StatusNotFound, "this server keeps no spend: it needs providers and a keys store (audit.db or keys.db)")
		return
	}
	q := r.URL.Query()
	by := q.Get("by")
	if by == "" {
		by = "key"
	}
	group, ok := spendGroups[by]
	if !ok {
		writeError(w, http.StatusBadRequest, "by: not key, principal, model, provider or day")
		return
	}
	now := h.cfg.Now()
	since := now.Add(-30 * 24 * time.Hour)
	if s := q.Get("since"); s != "" {
		if t, err := time.Parse(time.DateOnly, s); err == nil {
			since = t
		} else if d, err := kernel.ParseSpan(s); err == nil {
			since = now.Add(-d)
		} else {
			writeError(w, http.StatusBadRequest, "since: not a span (7d, 24h) or a date (2026-11-01)")
			return
		}
	}
	rows, err := h.cfg.Spend.Spend(r.Context(), since)
	if err != nil {
		storeError(w, err)
		return
	}
	sums := map[string]*kernel.Spend{}
	var total kernel.Spend
	for i := range rows {
		g := group(&rows[i])
		if sums[g] == nil {
			sums[g] = &kernel.Spend{}
		}
		sums[g].Add(&rows[i])
		total.Add(&rows[i])
	}
	type row struct {
		Group string `json:"group"`
		usage
	}
	out := []row{}
	for g, s := range sums {
		out = append(out, row{Group: g, usage: usageOf(s)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	writeJSON(w, http.StatusOK, map[string]any{"by": by, "since": since.UTC().Format(time.DateOnly), "rows": out, "total": usageOf(&total)})
}

// usage is a spend row's counts, without its grouping columns.
type usage struct {
	Requests         int64   `json:"requests"`
	InputTokens      int64   `json:"input_tokens"`
	CachedTokens     int64   `json:"cached_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	Unpriced         int64   `json:"unpriced"`
}

func usageOf(s *kernel.Spend) usage {
	return usage{s.Requests, s.InputTokens, s.CachedTokens, s.CacheWriteTokens, s.OutputTokens, s.ReasoningTokens, s.CostUSD, s.Unpriced}
}

// readBody reads a JSON body within maxBody and checks it strictly:
// duplicate names, invalid UTF-8 and deep nesting are refused before it
// is decoded.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody)); err != nil {
		return nil, errors.New("the body could not be read, or is over 16 KiB")
	}
	if err := strictjson.Check(buf.Bytes(), &strictjson.Options{MaxBytes: maxBody, MaxDepth: 8}); err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) {
			return nil, fmt.Errorf("the body is not strict JSON at %s", cmpOr(se.Pointer, "/"))
		}
		return nil, errors.New("the body is not strict JSON")
	}
	return buf.Bytes(), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// decodeProblem says what was wrong with a body without echoing it.
func decodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		return "member " + te.Field + " has the wrong type"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown member " + clip(strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return "it is not a JSON object"
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func storeError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, kernel.ErrNoKey):
		writeError(w, http.StatusNotFound, "no such key")
	case errors.Is(err, kernel.ErrKeyExists):
		writeError(w, http.StatusConflict, "the key exists")
	case errors.Is(err, context.Canceled):
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled")
	default:
		writeError(w, http.StatusServiceUnavailable, "the key store cannot be reached; try again later")
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
