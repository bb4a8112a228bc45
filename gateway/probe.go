// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
)

// ErrContinuation reports a backend whose chat template does not keep a
// continued assistant message, so two passes cannot work on it.
var ErrContinuation = errors.New("the backend's template does not keep the continued reasoning block")

// ProbeError is a provider that failed [Handler.Probe].
type ProbeError struct {
	Provider string
	Err      error
}

func (e *ProbeError) Error() string { return fmt.Sprintf("provider %q: %v", e.Provider, e.Err) }
func (e *ProbeError) Unwrap() error { return e.Err }

// probeMarker is the reasoning of the probe's continued message.
const probeMarker = "toolgate-probe-7f3a"

// Probe checks, before serving, that every provider with two passes and
// continuation auto keeps the continued reasoning block: it renders a
// conversation ending in an assistant message "<think>\n…\n</think>\n\n"
// with the server's own template — vLLM's /tokenize with
// continue_final_message then /detokenize; llama.cpp's /apply-template —
// and fails with a *ProbeError wrapping ErrContinuation when the block is
// gone or is followed by a new turn. A server that cannot be reached
// fails too. Other backend kinds have no such endpoint and are not
// probed: vLLM-compatible servers (openai_compat) are trusted to honour
// continue_final_message, Ollama, llama.cpp and Anthropic to continue a
// trailing assistant message, as they document.
func (h *Handler) Probe(ctx context.Context) error {
	for _, name := range h.providerNames() {
		p := h.providers[name]
		if !usesTwoPasses(p) || p.Continuation != ContinueAuto || (p.Backend != BackendVLLM && p.Backend != BackendLlamaCpp) {
			continue
		}
		if err := h.probe(ctx, p); err != nil {
			return &ProbeError{Provider: p.Name, Err: err}
		}
	}
	return nil
}

func (h *Handler) providerNames() []string {
	var names []string
	for _, pr := range h.cfg.Providers {
		names = append(names, pr.Name)
	}
	return names
}

func (h *Handler) probe(ctx context.Context, p *Provider) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	root := strings.TrimSuffix(strings.TrimRight(p.BaseURL, "/"), "/v1")
	tag := thinkTag(p)
	msgs := []map[string]string{
		{"role": "user", "content": "Say hello."},
		{"role": "assistant", "content": "<" + tag + ">\n" + probeMarker + "\n</" + tag + ">\n\n"},
	}
	var prompt string
	if p.Backend == BackendVLLM {
		var tok struct {
			Tokens []int `json:"tokens"`
		}
		if err := h.probePost(ctx, p, root+"/tokenize", map[string]any{"model": p.Model, "messages": msgs, "continue_final_message": true, "add_generation_prompt": false}, &tok); err != nil {
			return err
		}
		var detok struct {
			Prompt string `json:"prompt"`
		}
		if err := h.probePost(ctx, p, root+"/detokenize", map[string]any{"model": p.Model, "tokens": tok.Tokens}, &detok); err != nil {
			return err
		}
		prompt = detok.Prompt
	} else {
		var at struct {
			Prompt string `json:"prompt"`
		}
		if err := h.probePost(ctx, p, root+"/apply-template", map[string]any{"messages": msgs}, &at); err != nil {
			return err
		}
		prompt = at.Prompt
	}
	i := strings.LastIndex(prompt, probeMarker)
	if i < 0 || !strings.HasSuffix(strings.TrimRightFunc(prompt[i:], unicode.IsSpace), "</"+tag+">") {
		return ErrContinuation
	}
	return nil
}

func (h *Handler) probePost(ctx context.Context, p *Provider, url string, body any, out any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if p.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
	resp, err := h.client(p).Do(req)
	if err != nil {
		return fmt.Errorf("checking the template: %s", failureText(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("checking the template: %s", failureText(err))
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("checking the template: /%s answered %d", lastSegment(url), resp.StatusCode)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("checking the template: the answer is not the expected JSON")
	}
	return nil
}

func lastSegment(u string) string {
	if i := strings.LastIndex(u, "/"); i >= 0 {
		return u[i+1:]
	}
	return u
}
