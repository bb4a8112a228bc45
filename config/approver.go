// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// Approver is policy.approver: the webhook that decides the calls a
// require_approval rule matched, for tools served over MCP and for the
// calls models make through the gateway alike.
//
// The kernel POSTs a JSON object — principal, tool, safety, arguments,
// justification, and the rule and reason that asked for approval — and
// waits up to Timeout for a 200 answer {"approved": true|false,
// "reason": "…"}. Anything else (another status, a body that is not
// that object, no answer in time) denies the call, saying why.
type Approver struct {
	// URL is where the requests go: https, or http on loopback.
	URL string `yaml:"url"`
	// TokenEnv names the variable holding a bearer token sent with each
	// request; unset or empty is a start-up error.
	TokenEnv string `yaml:"token_env"`
	// Timeout bounds the wait for an answer. If zero, 30s.
	Timeout time.Duration `yaml:"timeout"`
}

// DefaultApproverTimeout is policy.approver.timeout when it is zero.
const DefaultApproverTimeout = 30 * time.Second

// maxApproverAnswer bounds the approver's answer body.
const maxApproverAnswer = 64 << 10

func (f *File) checkApprover() error {
	a := f.Policy.Approver
	if a == nil {
		return nil
	}
	u, err := url.Parse(a.URL)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return f.errf("policy.approver.url", "must be an http(s) URL such as https://approvals.example.com/toolgate")
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return f.errf("policy.approver.url", "must be https beyond loopback: the requests carry the calls' arguments")
	case u.User != nil:
		return f.errf("policy.approver.url", "must not hold credentials; use token_env")
	case a.Timeout < 0:
		return f.errf("policy.approver.timeout", "is negative")
	}
	return nil
}

// approver returns the kernel's Approve function for policy.approver, or
// nil without one.
func (f *File) approver(getenv func(string) string) (func(context.Context, *kernel.ApprovalRequest) (bool, error), error) {
	a := f.Policy.Approver
	if a == nil {
		return nil, nil
	}
	var token string
	if a.TokenEnv != "" {
		if token = getenv(a.TokenEnv); token == "" {
			return nil, f.errf("policy.approver.token_env", "%s is not set", a.TokenEnv)
		}
	}
	timeout := a.Timeout
	if timeout == 0 {
		timeout = DefaultApproverTimeout
	}
	client := &http.Client{
		Timeout: timeout,
		// A redirect could carry the arguments elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return func(ctx context.Context, req *kernel.ApprovalRequest) (bool, error) {
		body, err := json.Marshal(map[string]any{
			"principal":     req.Principal.ID,
			"tool":          req.Call.Name,
			"call_id":       req.Call.ID,
			"safety":        req.Capability.Safety,
			"arguments":     json.RawMessage(argsOrEmpty(req.Call.Arguments)),
			"justification": req.Justification,
			"rule":          req.Decision.Rule,
			"reason":        req.Decision.Reason,
		})
		if err != nil {
			return false, err
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(body))
		if err != nil {
			return false, err
		}
		hr.Header.Set("Content-Type", "application/json")
		if token != "" {
			hr.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(hr)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return false, fmt.Errorf("the approver did not answer within %s", timeout)
			}
			return false, errors.New("the approver could not be reached")
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Errorf("the approver answered status %d", resp.StatusCode)
		}
		var ans struct {
			Approved *bool `json:"approved"`
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxApproverAnswer+1))
		if err != nil || len(raw) > maxApproverAnswer || json.Unmarshal(raw, &ans) != nil || ans.Approved == nil {
			return false, errors.New(`the approver's answer is not {"approved": true|false}`)
		}
		return *ans.Approved, nil
	}, nil
}

func argsOrEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("{}")
	}
	return b
}
