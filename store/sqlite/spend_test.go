// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/store/sqlite"
)

// TestSpendStore: two processes (two handles on one file) add to the
// same day's row; other days and keys stay apart; since filters by day.
func TestSpendStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "spend.db")
	a, err := sqlite.OpenSpend(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.OpenSpend(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	d1 := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	d2 := d1.Add(24 * time.Hour)
	row := func(day time.Time, key string, cost float64) kernel.Spend {
		return kernel.Spend{Day: day, KeyID: key, Principal: "team-a", Model: "gpt", Provider: "openai", Requests: 1, InputTokens: 100, CachedTokens: 10, OutputTokens: 50, ReasoningTokens: 5, CostUSD: cost}
	}
	if err := a.AddSpend(ctx, []kernel.Spend{row(d1, "k1", 0.5), row(d2, "k1", 0.25)}); err != nil {
		t.Fatal(err)
	}
	if err := b.AddSpend(ctx, []kernel.Spend{row(d2, "k1", 0.25), row(d2, "k2", 1)}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Spend(ctx, d2.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	sum := row(d2, "k1", 0.5)
	sum.Requests, sum.InputTokens, sum.CachedTokens, sum.OutputTokens, sum.ReasoningTokens = 2, 200, 20, 100, 10
	want := []kernel.Spend{sum, row(d2, "k2", 1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spend since day 2 (-want +got):\n%s", diff)
	}
	all, _ := b.Spend(ctx, time.Time{})
	if len(all) != 3 {
		t.Errorf("%d rows in all, want 3", len(all))
	}
}
