// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

// Price is what a model's tokens cost, in USD per million. A zero
// CachedInput, CacheWrite or Reasoning price means the Input (for the
// first two) or Output price.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	CacheWrite  float64 `json:"cache_write,omitempty"`
	Output      float64 `json:"output"`
	Reasoning   float64 `json:"reasoning,omitempty"`
}

// Cost is what u cost at p, in USD. Input tokens include the cached and
// cache-write ones and output tokens the reasoning ones (as [Usage]
// counts them), so each is priced once, at its own rate; an unknown
// (negative) count is zero.
func (p *Price) Cost(u *server.Usage) float64 {
	n := func(v int64) float64 { return float64(max(v, 0)) }
	or := func(v, d float64) float64 {
		if v == 0 {
			return d
		}
		return v
	}
	cached, written := n(u.CacheReadTokens), n(u.CacheWriteTokens)
	plainIn := max(n(u.InputTokens)-cached-written, 0)
	reasoning := min(n(u.ReasoningTokens), n(u.OutputTokens))
	plainOut := n(u.OutputTokens) - reasoning
	usd := plainIn*p.Input + cached*or(p.CachedInput, p.Input) + written*or(p.CacheWrite, p.Input) +
		plainOut*p.Output + reasoning*or(p.Reasoning, p.Output)
	return usd / 1e6
}

// SpendConfig configures [NewSpendRecorder].
type SpendConfig struct {
	// Store keeps the spend. Required.
	Store kernel.SpendStore
	// Prices by public model name, else by provider name; a request
	// whose model has neither is counted in tokens and as unpriced, and
	// logged once per model.
	Prices map[string]Price
	// Every is how often the rows gathered are written. If zero, one
	// second.
	Every time.Duration
	// Logger receives unpriced models and write failures. If nil, none.
	Logger *slog.Logger
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// SpendRecorder is a [server.Observer] that sums every answered model
// request's tokens and cost per day, key, principal, model and provider,
// and writes the sums to the store every second, off the requests' path.
// Close writes what is left. It is safe for concurrent use.
type SpendRecorder struct {
	// fixed at creation
	cfg  SpendConfig
	log  *slog.Logger
	done chan struct{}
	stop chan struct{}

	mu       sync.Mutex
	rows     map[spendKey]*kernel.Spend
	unpriced map[string]bool
	closed   bool
}

type spendKey struct {
	day                             int64
	key, principal, model, provider string
}

// NewSpendRecorder starts a recorder; Close stops it.
func NewSpendRecorder(cfg *SpendConfig) (*SpendRecorder, error) {
	if cfg == nil || cfg.Store == nil {
		return nil, errors.New("gateway: a spend recorder needs a store")
	}
	r := &SpendRecorder{cfg: *cfg, done: make(chan struct{}), stop: make(chan struct{}), rows: map[spendKey]*kernel.Spend{}, unpriced: map[string]bool{}}
	for name, p := range cfg.Prices {
		if p.Input < 0 || p.CachedInput < 0 || p.CacheWrite < 0 || p.Output < 0 || p.Reasoning < 0 {
			return nil, errors.New("gateway: the price of " + name + " is negative")
		}
	}
	if r.cfg.Every <= 0 {
		r.cfg.Every = time.Second
	}
	if r.cfg.Now == nil {
		r.cfg.Now = time.Now
	}
	r.log = cfg.Logger
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	go r.run()
	return r, nil
}

// Observe implements [server.Observer]: it adds a model request to the
// day's sums. Tool calls are not spend.
func (r *SpendRecorder) Observe(o server.Observation) {
	q := o.Request
	if q == nil || q.Provider == "" {
		return // refused before any backend was asked: nothing was spent
	}
	u := q.Usage
	row := kernel.Spend{Requests: 1, InputTokens: max(u.InputTokens, 0), CachedTokens: max(u.CacheReadTokens, 0),
		CacheWriteTokens: max(u.CacheWriteTokens, 0), OutputTokens: max(u.OutputTokens, 0), ReasoningTokens: max(u.ReasoningTokens, 0)}
	p, ok := r.cfg.Prices[q.Model]
	if !ok {
		p, ok = r.cfg.Prices[q.Provider]
	}
	if ok {
		row.CostUSD = p.Cost(&u)
	} else {
		row.Unpriced = 1
	}
	day := q.Time.UTC().Truncate(24 * time.Hour)
	if q.Time.IsZero() {
		day = r.cfg.Now().UTC().Truncate(24 * time.Hour)
	}
	k := spendKey{day: day.Unix(), key: o.KeyID, principal: o.Principal, model: q.Model, provider: q.Provider}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok && !r.unpriced[q.Model] {
		r.unpriced[q.Model] = true
		r.log.Warn("model has no price in pricing: its requests are counted in tokens only", "model", q.Model, "provider", q.Provider)
	}
	s := r.rows[k]
	if s == nil {
		s = &kernel.Spend{Day: day, KeyID: k.key, Principal: k.principal, Model: k.model, Provider: k.provider}
		r.rows[k] = s
	}
	s.Add(&row)
}

func (r *SpendRecorder) run() {
	defer close(r.done)
	t := time.NewTicker(r.cfg.Every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.flush(context.Background())
		case <-r.stop:
			return
		}
	}
}

// flush writes the sums gathered; on failure they are kept for the
// next try.
func (r *SpendRecorder) flush(ctx context.Context) error {
	r.mu.Lock()
	if len(r.rows) == 0 {
		r.mu.Unlock()
		return nil
	}
	rows := make([]kernel.Spend, 0, len(r.rows))
	for _, s := range r.rows {
		rows = append(rows, *s)
	}
	clear(r.rows)
	r.mu.Unlock()
	if err := r.cfg.Store.AddSpend(ctx, rows); err != nil {
		r.log.Warn("spend not written; kept for the next try", "rows", len(rows), "err", err)
		r.mu.Lock()
		for i := range rows {
			s := &rows[i]
			k := spendKey{day: s.Day.Unix(), key: s.KeyID, principal: s.Principal, model: s.Model, provider: s.Provider}
			if old := r.rows[k]; old != nil {
				old.Add(s)
			} else {
				r.rows[k] = s
			}
		}
		r.mu.Unlock()
		return err
	}
	return nil
}

// Flush writes the sums gathered so far now.
func (r *SpendRecorder) Flush(ctx context.Context) error { return r.flush(ctx) }

// Close stops the recorder and writes what is left.
func (r *SpendRecorder) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	return r.flush(ctx)
}
