// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import "time"

// Observation is one gateway request as [Config.Observe] sees it: no
// prompt, answer or key, only what the metrics count.
type Observation struct {
	Time     time.Time     `json:"time"`
	Front    API           `json:"front"`
	Model    string        `json:"model"`
	Provider string        `json:"provider"`
	Status   int           `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	TTFT     time.Duration `json:"ttft_ns"`
	Usage    Usage         `json:"usage"`
	Finish   Finish        `json:"finish"`
	// Error says what failed, in words that hold nothing of the stream;
	// empty when nothing did.
	Error string `json:"error,omitempty"`
}

func (h *Handler) observe(s *served, d time.Duration) {
	model := s.model
	if !s.known {
		model = unknownModel
	}
	o := Observation{Time: s.start, Front: s.front, Model: model, Provider: s.provider, Status: s.status, Duration: d, TTFT: s.ttft, Usage: s.usage, Finish: s.finish}
	if s.err != nil {
		o.Error = failureText(s.err)
	}
	h.cfg.Observe(o)
}
