// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// SpendStore is a [kernel.SpendStore] in the store's database: one row
// per day, key, principal, model and provider, which every replica adds
// to with one upsert, so that their counts add up. It is safe for
// concurrent use.
type SpendStore struct{ s *Store }

var _ kernel.SpendStore = (*SpendStore)(nil)

// Spend returns the spend store on s's database.
func (s *Store) Spend() *SpendStore { return &SpendStore{s: s} }

// AddSpend implements [kernel.SpendStore]: one statement, so all rows or
// none. Rows of one day, key, principal, model and provider are summed
// first (a statement may not update a row twice), and the rest go in
// key order, so that replicas adding to the same rows at once wait for
// each other instead of deadlocking.
func (s *SpendStore) AddSpend(ctx context.Context, rows []kernel.Spend) error {
	if len(rows) == 0 {
		return nil
	}
	type key struct {
		day                             int64
		key, principal, model, provider string
	}
	sums := map[key]*kernel.Spend{}
	var keys []key
	for i := range rows {
		r := &rows[i]
		k := key{r.Day.UTC().Truncate(24 * time.Hour).Unix(), r.KeyID, r.Principal, r.Model, r.Provider}
		if sums[k] == nil {
			sums[k] = &kernel.Spend{}
			keys = append(keys, k)
		}
		sums[k].Add(r)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.key, b.key), cmp.Compare(a.principal, b.principal),
			cmp.Compare(a.model, b.model), cmp.Compare(a.provider, b.provider))
	})
	n := len(keys)
	days, requests, input, cached, cacheWrite, output, reasoning, unpriced := make([]int64, n), make([]int64, n), make([]int64, n),
		make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	keyIDs, principals, models, providers := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	costs := make([]float64, n)
	for i, k := range keys {
		r := sums[k]
		days[i], keyIDs[i], principals[i], models[i], providers[i] = k.day, k.key, k.principal, k.model, k.provider
		requests[i], input[i], cached[i], cacheWrite[i] = r.Requests, r.InputTokens, r.CachedTokens, r.CacheWriteTokens
		output[i], reasoning[i], costs[i], unpriced[i] = r.OutputTokens, r.ReasoningTokens, r.CostUSD, r.Unpriced
	}
	_, err := s.s.pool.Exec(ctx, `INSERT INTO toolgate_spend AS t (day, key_id, principal, model, provider, requests, input, cached, cache_write, output, reasoning, cost_usd, unpriced)
		SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BIGINT[], $7::BIGINT[], $8::BIGINT[],
			$9::BIGINT[], $10::BIGINT[], $11::BIGINT[], $12::DOUBLE PRECISION[], $13::BIGINT[])
		ON CONFLICT (day, key_id, principal, model, provider) DO UPDATE SET
		requests = t.requests + excluded.requests, input = t.input + excluded.input, cached = t.cached + excluded.cached,
		cache_write = t.cache_write + excluded.cache_write, output = t.output + excluded.output, reasoning = t.reasoning + excluded.reasoning,
		cost_usd = t.cost_usd + excluded.cost_usd, unpriced = t.unpriced + excluded.unpriced`,
		days, keyIDs, principals, models, providers, requests, input, cached, cacheWrite, output, reasoning, costs, unpriced)
	if err != nil {
		return fmt.Errorf("postgres: spend: %w", err)
	}
	return nil
}

// Spend implements [kernel.SpendStore].
func (s *SpendStore) Spend(ctx context.Context, since time.Time) ([]kernel.Spend, error) {
	rows, err := s.s.pool.Query(ctx, `SELECT day, key_id, principal, model, provider, requests, input, cached, cache_write, output, reasoning, cost_usd, unpriced
		FROM toolgate_spend WHERE day >= $1 ORDER BY day, key_id, principal, model, provider`, since.UTC().Truncate(24*time.Hour).Unix())
	if err != nil {
		return nil, fmt.Errorf("postgres: spend: %w", err)
	}
	defer rows.Close()
	var out []kernel.Spend
	for rows.Next() {
		var r kernel.Spend
		var day int64
		if err := rows.Scan(&day, &r.KeyID, &r.Principal, &r.Model, &r.Provider, &r.Requests, &r.InputTokens, &r.CachedTokens,
			&r.CacheWriteTokens, &r.OutputTokens, &r.ReasoningTokens, &r.CostUSD, &r.Unpriced); err != nil {
			return nil, fmt.Errorf("postgres: spend: %w", err)
		}
		r.Day = time.Unix(day, 0).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: spend: %w", err)
	}
	return out, nil
}
