// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"time"
)

// Spend is what model requests used, summed over one day for one key,
// principal, model and provider: the row of a spend report.
type Spend struct {
	// Day is the UTC day, at midnight.
	Day       time.Time `json:"day"`
	KeyID     string    `json:"key_id"`
	Principal string    `json:"principal"`
	Model     string    `json:"model"`
	Provider  string    `json:"provider"`
	Requests  int64     `json:"requests"`
	// InputTokens includes CachedTokens and CacheWriteTokens;
	// OutputTokens includes ReasoningTokens (as OpenAI counts them).
	InputTokens      int64 `json:"input_tokens"`
	CachedTokens     int64 `json:"cached_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	ReasoningTokens  int64 `json:"reasoning_tokens"`
	// CostUSD is what the priced requests cost; Unpriced counts the
	// requests whose model had no price (their tokens are counted).
	CostUSD  float64 `json:"cost_usd"`
	Unpriced int64   `json:"unpriced"`
}

// Add adds o's counts to s.
func (s *Spend) Add(o *Spend) {
	s.Requests += o.Requests
	s.InputTokens += o.InputTokens
	s.CachedTokens += o.CachedTokens
	s.CacheWriteTokens += o.CacheWriteTokens
	s.OutputTokens += o.OutputTokens
	s.ReasoningTokens += o.ReasoningTokens
	s.CostUSD += o.CostUSD
	s.Unpriced += o.Unpriced
}

// SpendStore keeps spend. Implementations are safe for concurrent use
// and shared by the processes of a deployment.
type SpendStore interface {
	// AddSpend adds each row to the one with its day, key, principal,
	// model and provider, in one transaction.
	AddSpend(ctx context.Context, rows []Spend) error
	// Spend returns the rows of days from since on, oldest first.
	Spend(ctx context.Context, since time.Time) ([]Spend, error)
}
