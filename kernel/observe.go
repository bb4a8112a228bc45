// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/toolgate/toolgate/redact"
)

// Observation is one call as [Config.Observe] sees it: what the audit
// record holds, masked the same way.
type Observation struct {
	Time      time.Time `json:"time"`
	Principal string    `json:"principal"`
	Tool      string    `json:"tool"`
	CallID    string    `json:"call_id"`
	Status    Status    `json:"status"`
	Effect    Effect    `json:"effect"`
	Rule      string    `json:"rule"`
	Code      Code      `json:"code"`
	Reason    string    `json:"reason"`
	// Args and Result are redacted; Args is nil when they were not JSON.
	Args   json.RawMessage `json:"args,omitempty"`
	Result string          `json:"result"`
	// Duration is from the start of Call to its end.
	Duration time.Duration `json:"duration_ns"`
	// Parent is the call id of the model request that made the call,
	// when a model made it through the gateway; Proposed says the call
	// was for one of the client's own tools, decided here and run, if
	// allowed, by the client ([Kernel.Review]).
	Parent   string `json:"parent,omitempty"`
	Proposed bool   `json:"proposed,omitempty"`
}

// maxObservedResult bounds the result an observation carries.
const maxObservedResult = 4 << 10

func (k *Kernel) observeCall(ctx context.Context, req *Request, out *Outcome, red *redact.Redactor, start time.Time) {
	res := red.String(resultText(&out.Result))
	if len(res) > maxObservedResult {
		n := maxObservedResult
		for n > 0 && !utf8.RuneStart(res[n]) {
			n--
		}
		res = res[:n] + "…"
	}
	args := red.CheckedJSON(req.Call.Arguments)
	if len(args) > maxObservedResult {
		args = nil
	}
	k.observe(ctx, Observation{
		Time: start, Principal: k.red.Load().masked(red, req.Principal.ID), Tool: out.Result.Name, CallID: out.Result.CallID,
		Status: out.Status, Effect: out.Decision.Effect, Rule: out.Decision.Rule, Code: out.Decision.Code, Reason: out.Decision.Reason,
		Args: args, Result: res, Duration: time.Since(start), Parent: red.String(req.Parent), Proposed: req.proposed,
	})
}
