// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// keyLimits holds what the gateway counts of keys made at run time:
// requests per minute in the limiter (shared by replicas when it is),
// requests in flight here.
type keyLimits struct {
	limiter kernel.Limiter
	meter   kernel.Meter
	prices  map[string]Price
	// budgets of principals, with all their keys and tokens together
	budgets map[string]kernel.Budget
	mu      sync.Mutex
	flying  map[string]int
}

// defaultBound is the answer's bound a reservation assumes when neither
// the client nor the provider sets one.
const defaultBound = 4096

// rpmCapability is the limiter's capability name for a key's requests.
const rpmCapability = "gateway/requests"

// admit checks the request's key, if it has one, before anything goes
// to a backend: the model must be one the key may use (403), the key's
// requests per minute and in flight must be under its bounds (429 with
// Retry-After and the API's rate-limit headers). It answers the client
// itself when the request may not go on; otherwise release must be
// called when the request is done.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, front API, req *Request, p *Provider, bodyLen int, s *served) (release func(), ok bool) {
	k := s.who.Key
	_, budgeted := h.keys.budgets[s.who.Principal.ID]
	if k == nil && !budgeted {
		return func() {}, true
	}
	if k == nil {
		settle, ok := h.reserve(w, r, front, req, p, bodyLen, s)
		if !ok {
			return nil, false
		}
		return func() { settle(false) }, true
	}
	model := req.Model
	if !k.AllowsModel(model) {
		s.status = http.StatusForbidden
		writeError(w, front, s.status, errorType(front, s.status), fmt.Sprintf("this key may not use model %q", clip(model)))
		return nil, false
	}
	if k.RPM > 0 {
		allowed, retry, err := h.keys.limiter.Allow(r.Context(), "key:"+k.ID, rpmCapability, k.RPM, time.Minute)
		if err != nil {
			// The limits store is down: fail closed.
			s.status = http.StatusServiceUnavailable
			writeError(w, front, s.status, errorType(front, s.status), "the limits store cannot be reached; try again later")
			return nil, false
		}
		if !allowed {
			rateLimited(w, front, s, retry, k.RPM, "requests per minute")
			return nil, false
		}
	}
	settle, ok := h.reserve(w, r, front, req, p, bodyLen, s)
	if !ok {
		return nil, false
	}
	if k.MaxParallel > 0 {
		h.keys.mu.Lock()
		if h.keys.flying[k.ID] >= k.MaxParallel {
			h.keys.mu.Unlock()
			settle(true)
			rateLimited(w, front, s, time.Second, k.MaxParallel, "requests in flight")
			return nil, false
		}
		h.keys.flying[k.ID]++
		h.keys.mu.Unlock()
		return func() {
			h.keys.mu.Lock()
			if h.keys.flying[k.ID]--; h.keys.flying[k.ID] <= 0 {
				delete(h.keys.flying, k.ID)
			}
			h.keys.mu.Unlock()
			settle(false)
		}, true
	}
	return func() { settle(false) }, true
}

// reserve takes the request's bound out of its key's tokens per minute
// and budgets before it goes out: its input estimated at four bytes a
// token of the body, its answer at the bound the client or provider set.
// settle(refund) then makes each reservation good with the usage the
// backend reported (all of it back when refund, or when nothing was
// answered). A budget spent is 429 budget_exceeded; tokens per minute
// 429 with the API's token rate-limit headers.
func (h *Handler) reserve(w http.ResponseWriter, r *http.Request, front API, req *Request, p *Provider, bodyLen int, s *served) (settle func(refund bool), ok bool) {
	k := s.who.Key // nil: only the principal's budget
	bound := int64(req.MaxTokens)
	if bound <= 0 {
		bound = int64(p.MaxTokens)
	}
	if bound <= 0 {
		bound = defaultBound
	}
	in := int64(bodyLen / 4)
	tokens := float64(in + bound)
	price, priced := h.keys.prices[req.Model]
	if !priced {
		price, priced = h.keys.prices[p.Name]
	}
	// The plan: each bound that applies, with how to refuse when it is
	// reached; then all of them reserved at once where the meter can.
	type plan struct {
		usd         bool
		whose, what string // a budget's refusal; empty for tpm
	}
	var plans [5]plan
	var rsBuf [5]kernel.Reservation
	rs := rsBuf[:0]
	budget := func(name, whose string, b kernel.Budget) {
		if b.Tokens > 0 {
			plans[len(rs)] = plan{whose: whose, what: strconv.FormatInt(b.Tokens, 10) + " tokens"}
			rs = append(rs, kernel.Reservation{Name: name + "/tokens", Amount: tokens, Limit: float64(b.Tokens), Period: b.Period})
		}
		if b.USD > 0 && priced {
			plans[len(rs)] = plan{usd: true, whose: whose, what: fmt.Sprintf("$%.2f", b.USD)}
			rs = append(rs, kernel.Reservation{Name: name + "/usd", Amount: price.Cost(&server.Usage{InputTokens: in, OutputTokens: bound}), Limit: b.USD, Period: b.Period})
		}
	}
	if k != nil {
		if k.TPM > 0 {
			plans[len(rs)] = plan{}
			rs = append(rs, kernel.Reservation{Name: "key:" + k.ID + "/tpm", Amount: tokens, Limit: float64(k.TPM), Period: time.Minute})
		}
		budget("key:"+k.ID, "this key's", k.Budget)
	}
	if b, ok := h.keys.budgets[s.who.Principal.ID]; ok {
		budget("principal:"+s.who.Principal.ID, "principal "+s.who.Principal.ID+"'s", b)
	}
	if len(rs) == 0 {
		return func(bool) {}, true
	}
	starts, refused, reset, err := kernel.ReserveAll(r.Context(), h.keys.meter, rs)
	if err != nil {
		if h.cfg.Logger != nil {
			h.cfg.Logger.Warn("budget meter failed; request refused", "principal", s.who.Principal.ID, "key", s.who.KeyID, "err", err)
		}
		s.status = http.StatusServiceUnavailable
		writeError(w, front, s.status, errorType(front, s.status), "the limits store cannot be reached; try again later")
		return nil, false
	}
	if refused >= 0 {
		if pl := plans[refused]; pl.what == "" {
			tokensLimited(w, front, s, reset, k.TPM)
		} else {
			budgetSpent(w, front, s, reset, pl.whose, pl.what)
		}
		return nil, false
	}
	return func(refund bool) {
		u := s.usage
		answered := s.status == http.StatusOK
		known := u.InputTokens >= 0 || u.OutputTokens >= 0
		var ssBuf [5]kernel.Settlement
		ss := ssBuf[:0]
		for i, r := range rs {
			pl := plans[i]
			var used float64
			switch {
			case refund || !answered:
				used = 0 // nothing went out, or nothing came back
			case !known:
				continue // answered, usage unknown: the reservation stands
			case pl.usd:
				used = price.Cost(&server.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens,
					CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens})
			default:
				used = float64(max(u.InputTokens, 0) + max(u.OutputTokens, 0))
			}
			ss = append(ss, kernel.Settlement{Name: r.Name, Delta: used - r.Amount, Period: r.Period, Start: starts[i]})
		}
		if err := kernel.SettleAll(context.WithoutCancel(r.Context()), h.keys.meter, ss); err != nil && h.cfg.Logger != nil {
			h.cfg.Logger.Warn("budget not settled; the reservation stands", "principal", s.who.Principal.ID, "key", s.who.KeyID, "err", err)
		}
	}, true
}

// tokensLimited answers 429 for a key over its tokens per minute.
func tokensLimited(w http.ResponseWriter, front API, s *served, retry time.Duration, limit int64) {
	secs := max(int(math.Ceil(retry.Seconds())), 1)
	hd := w.Header()
	hd.Set("Retry-After", strconv.Itoa(secs))
	if front == APIMessages {
		hd.Set("anthropic-ratelimit-tokens-limit", strconv.FormatInt(limit, 10))
		hd.Set("anthropic-ratelimit-tokens-remaining", "0")
		hd.Set("anthropic-ratelimit-tokens-reset", time.Now().Add(time.Duration(secs)*time.Second).UTC().Format(time.RFC3339))
	} else {
		hd.Set("x-ratelimit-limit-tokens", strconv.FormatInt(limit, 10))
		hd.Set("x-ratelimit-remaining-tokens", "0")
		hd.Set("x-ratelimit-reset-tokens", strconv.Itoa(secs)+"s")
	}
	s.status = http.StatusTooManyRequests
	writeError(w, front, s.status, errorType(front, s.status), fmt.Sprintf("this key's limit of %d tokens per minute is reached; retry in %ds", limit, secs))
}

// budgetSpent answers 429 budget_exceeded for a key whose budget for
// the period is spent.
func budgetSpent(w http.ResponseWriter, front API, s *served, reset time.Duration, whose, what string) {
	msg := whose + " budget of " + what + " is spent"
	if reset > 0 {
		secs := max(int(math.Ceil(reset.Seconds())), 1)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		msg += fmt.Sprintf("; it renews in %ds", secs)
	}
	s.status = http.StatusTooManyRequests
	writeError(w, front, s.status, "budget_exceeded", msg)
}

// rateLimited answers 429 with Retry-After and the front door's own
// rate-limit headers.
func rateLimited(w http.ResponseWriter, front API, s *served, retry time.Duration, limit int, what string) {
	secs := int(math.Ceil(retry.Seconds()))
	if secs < 1 {
		secs = 1
	}
	hd := w.Header()
	hd.Set("Retry-After", strconv.Itoa(secs))
	switch front {
	case APIMessages:
		hd.Set("anthropic-ratelimit-requests-limit", strconv.Itoa(limit))
		hd.Set("anthropic-ratelimit-requests-remaining", "0")
		hd.Set("anthropic-ratelimit-requests-reset", time.Now().Add(time.Duration(secs)*time.Second).UTC().Format(time.RFC3339))
	default:
		hd.Set("x-ratelimit-limit-requests", strconv.Itoa(limit))
		hd.Set("x-ratelimit-remaining-requests", "0")
		hd.Set("x-ratelimit-reset-requests", strconv.Itoa(secs)+"s")
	}
	s.status = http.StatusTooManyRequests
	writeError(w, front, s.status, errorType(front, s.status), fmt.Sprintf("this key's limit of %d %s is reached; retry in %ds", limit, what, secs))
}
