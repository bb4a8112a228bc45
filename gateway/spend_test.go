// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

func TestPriceCost(t *testing.T) {
	claude := gateway.Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}
	gpt := gateway.Price{Input: 0.25, CachedInput: 0.025, Output: 2, Reasoning: 2}
	tests := []struct {
		name  string
		price gateway.Price
		usage server.Usage
		want  float64
	}{
		{name: "plain", price: claude, usage: server.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, want: 18},
		// 1M input of which 600k read from cache and 100k written to it:
		// 300k at 3, 600k at 0.3, 100k at 3.75.
		{name: "cache", price: claude, usage: server.Usage{InputTokens: 1_000_000, CacheReadTokens: 600_000, CacheWriteTokens: 100_000}, want: 0.9 + 0.18 + 0.375},
		// Reasoning is part of output, priced once.
		{name: "reasoning", price: gpt, usage: server.Usage{InputTokens: 2000, OutputTokens: 1000, ReasoningTokens: 800}, want: (2000*0.25 + 1000*2) / 1e6},
		{name: "unknown_counts", price: gpt, usage: server.Usage{InputTokens: -1, OutputTokens: -1, CacheReadTokens: -1, ReasoningTokens: -1}, want: 0},
		{name: "cached_defaults_to_input", price: gateway.Price{Input: 1, Output: 2}, usage: server.Usage{InputTokens: 10, CacheReadTokens: 10}, want: 10 / 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Cost(&tt.usage); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost = %v, want %v", got, tt.want)
			}
		})
	}
}

// memSpend is a kernel.SpendStore in memory that can be made to fail.
type memSpend struct {
	mu   sync.Mutex
	rows map[string]*kernel.Spend
	fail bool
}

func (m *memSpend) AddSpend(_ context.Context, rows []kernel.Spend) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errors.New("disk full")
	}
	for _, r := range rows {
		k := r.Day.String() + r.KeyID + r.Principal + r.Model + r.Provider
		if m.rows[k] == nil {
			c := r
			m.rows[k] = &c
			continue
		}
		m.rows[k].Add(&r)
	}
	return nil
}

func (m *memSpend) Spend(context.Context, time.Time) ([]kernel.Spend, error) { return nil, nil }

// TestSpendRecorder: requests are summed per day, key, principal, model
// and provider, priced by model else provider, an unpriced one counted
// in tokens; a refused request (no provider) is not spend; a failed
// write keeps the sums for the next.
func TestSpendRecorder(t *testing.T) {
	store := &memSpend{rows: map[string]*kernel.Spend{}, fail: true}
	r, err := gateway.NewSpendRecorder(&gateway.SpendConfig{Store: store, Every: time.Hour,
		Prices: map[string]gateway.Price{"gpt": {Input: 1, Output: 2}, "local": {Input: 0.5, Output: 0.5}}})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	req := func(model, provider string, in, out int64) server.Observation {
		return server.Observation{Principal: "team-a", KeyID: "key_1", Request: &server.Request{Time: day, Model: model, Provider: provider,
			Usage: server.Usage{InputTokens: in, OutputTokens: out, ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}}}
	}
	r.Observe(req("gpt", "openai", 1000, 500))
	r.Observe(req("gpt", "openai", 3000, 500))
	r.Observe(req("qwen", "local", 1000, 1000)) // priced by its provider
	r.Observe(req("mystery", "other", 10, 10))  // no price
	r.Observe(req("gpt", "", 0, 0))             // refused before a backend: not spend
	r.Observe(server.Observation{Principal: "team-a", Call: &kernel.Observation{Tool: "x"}})
	if err := r.Flush(context.Background()); err == nil {
		t.Fatal("a failing store: Flush succeeded")
	}
	store.mu.Lock()
	store.fail = false
	store.mu.Unlock()
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := map[string]kernel.Spend{}
	for _, s := range store.rows {
		got[s.Model] = *s
	}
	want := map[string]kernel.Spend{
		"gpt":     {Day: day.Truncate(24 * time.Hour), KeyID: "key_1", Principal: "team-a", Model: "gpt", Provider: "openai", Requests: 2, InputTokens: 4000, OutputTokens: 1000, CostUSD: (4000*1 + 1000*2) / 1e6},
		"qwen":    {Day: day.Truncate(24 * time.Hour), KeyID: "key_1", Principal: "team-a", Model: "qwen", Provider: "local", Requests: 1, InputTokens: 1000, OutputTokens: 1000, CostUSD: 1000 / 1e6},
		"mystery": {Day: day.Truncate(24 * time.Hour), KeyID: "key_1", Principal: "team-a", Model: "mystery", Provider: "other", Requests: 1, InputTokens: 10, OutputTokens: 10, Unpriced: 1},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Errorf("spend (-want +got):\n%s", diff)
	}
	if _, err := gateway.NewSpendRecorder(&gateway.SpendConfig{Store: store, Prices: map[string]gateway.Price{"x": {Input: -1}}}); err == nil {
		t.Error("a negative price was taken")
	}
}
