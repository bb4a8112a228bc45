// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"time"

	"github.com/toolgate/toolgate/server"
)

// observe tells [Config.Observe] of a request once it is answered: no
// prompt, answer or key, only what the metrics count, and who asked.
func (h *Handler) observe(s *served, d time.Duration) {
	model := s.model
	if !s.known {
		model = unknownModel
	}
	u := s.usage
	o := server.Observation{Principal: s.who.Principal.ID, KeyID: s.who.KeyID, Request: &server.Request{
		ID: s.reqID, Time: s.start, Front: string(s.front), Model: model, Provider: s.provider, Status: s.status, Duration: d, TTFT: s.ttft,
		Usage:  server.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens},
		Finish: string(s.finish),
	}}
	if s.provider != "" {
		price, ok := h.cfg.Prices[model]
		if !ok {
			price, ok = h.cfg.Prices[s.provider]
		}
		if ok {
			o.Request.CostUSD, o.Request.Priced = price.Cost(&o.Request.Usage), true
		}
	}
	if s.err != nil {
		o.Request.Error = failureText(s.err)
	}
	if s.span != nil {
		if sc := s.span.SpanContext(); sc.HasTraceID() {
			o.TraceID = sc.TraceID().String()
		}
	}
	h.cfg.Observe(o)
}
