// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// keyLimits holds what the gateway counts of keys made at run time:
// requests per minute in the limiter (shared by replicas when it is),
// requests in flight here.
type keyLimits struct {
	limiter kernel.Limiter
	mu      sync.Mutex
	flying  map[string]int
}

// rpmCapability is the limiter's capability name for a key's requests.
const rpmCapability = "gateway/requests"

// admit checks the request's key, if it has one, before anything goes
// to a backend: the model must be one the key may use (403), the key's
// requests per minute and in flight must be under its bounds (429 with
// Retry-After and the API's rate-limit headers). It answers the client
// itself when the request may not go on; otherwise release must be
// called when the request is done.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, front API, model string, s *served) (release func(), ok bool) {
	k := s.who.Key
	if k == nil {
		return func() {}, true
	}
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
	if k.MaxParallel > 0 {
		h.keys.mu.Lock()
		if h.keys.flying[k.ID] >= k.MaxParallel {
			h.keys.mu.Unlock()
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
		}, true
	}
	return func() {}, true
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
