// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// Bounds of a spend answer: a browser draws it whole, so neither its
// days nor its groups grow with the store.
const (
	// maxSpendDays is how many days an answer covers at most, today
	// included; an older since is moved up to the first of them.
	maxSpendDays = 90
	// maxSpendGroups bounds an answer's groups: beyond it the smallest
	// are summed into one, the "other" group, which is last.
	maxSpendGroups = 50
	oneDay         = 24 * time.Hour
)

// errNoSpend is the spend API's answer on a server that keeps none.
const errNoSpend = "this server keeps no spend"

// spendGroupOf names the group a row is summed into, per ?by=.
var spendGroupOf = map[string]func(*kernel.Spend) string{
	"key": func(s *kernel.Spend) string {
		if s.KeyID == "" {
			return "(none)"
		}
		return s.KeyID
	},
	"principal": func(s *kernel.Spend) string { return s.Principal },
	"model":     func(s *kernel.Spend) string { return s.Model },
	"provider":  func(s *kernel.Spend) string { return s.Provider },
}

// spendAnswer is GET /ui/api/spend: the spend of every UTC day from
// Since to today, summed per group, largest cost first.
type spendAnswer struct {
	By    string `json:"by"`
	Since string `json:"since"` // the first day, 2006-01-02
	// Days are every day from Since to today, oldest first: the index
	// of each group's daily series.
	Days   []string     `json:"days"`
	Groups []spendGroup `json:"groups"`
	Total  spendSums    `json:"total"`
	// Note says what the answer lacks (budgets the key store could not
	// give), for the page to show; empty when nothing.
	Note string `json:"note,omitempty"`
}

// spendGroup is one key, principal, model or provider.
type spendGroup struct {
	Group string `json:"group"`
	// Merged counts the groups summed into this one, the last, when
	// there were more than maxSpendGroups; zero for any other group.
	Merged int `json:"merged,omitempty"`
	// Principal, Budget and Revoked are a key's (by=key), from the key
	// store; Principal, without one, from its spend.
	Principal string       `json:"principal,omitempty"`
	Budget    *spendBudget `json:"budget,omitempty"`
	Revoked   bool         `json:"revoked,omitempty"`
	Total     spendSums    `json:"total"`
	// DailyCostUSD and DailyTokens (input and output) are per day of
	// the answer's Days.
	DailyCostUSD []float64 `json:"daily_cost_usd"`
	DailyTokens  []int64   `json:"daily_tokens"`
}

// spendBudget is a key's budget; PeriodSeconds zero is for ever.
type spendBudget struct {
	USD           float64 `json:"usd,omitempty"`
	Tokens        int64   `json:"tokens,omitempty"`
	PeriodSeconds int64   `json:"period_seconds"`
}

// spendSums are the counts of [kernel.Spend] without its row's names.
type spendSums struct {
	Requests         int64   `json:"requests"`
	InputTokens      int64   `json:"input_tokens"`
	CachedTokens     int64   `json:"cached_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	Unpriced         int64   `json:"unpriced"`
}

func sumsOf(s *kernel.Spend) spendSums {
	return spendSums{Requests: s.Requests, InputTokens: s.InputTokens, CachedTokens: s.CachedTokens, CacheWriteTokens: s.CacheWriteTokens,
		OutputTokens: s.OutputTokens, ReasoningTokens: s.ReasoningTokens, CostUSD: s.CostUSD, Unpriced: s.Unpriced}
}

func (c *Console) spend(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Spend == nil {
		jsonError(w, http.StatusNotFound, errNoSpend)
		return
	}
	q := r.URL.Query()
	by := cmp.Or(q.Get("by"), "key")
	if spendGroupOf[by] == nil {
		jsonError(w, http.StatusBadRequest, "by is key, principal, model or provider")
		return
	}
	now := c.now()
	first, err := spendSince(q.Get("since"), now)
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	rows, err := c.cfg.Spend.Spend(r.Context(), first)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "the spend could not be read: "+err.Error())
		return
	}
	var keys []kernel.Key
	note := ""
	if by == "key" && c.cfg.Keys != nil {
		// Budgets are an aid to reading the spend: without them the
		// spend is still worth showing.
		if keys, err = c.cfg.Keys.Keys(r.Context()); err != nil {
			note = "The keys could not be read, so no budget is shown: " + err.Error()
		}
	}
	a := sumSpend(rows, by, first, now, keys)
	a.Note = note
	writeJSON(w, a)
}

// spendSince reads ?since=: a span back from now (30d, 12h), a date
// (2026-11-01) or an RFC 3339 time, empty for 30d, as toolgate spend
// does. It returns the UTC day it falls on, no earlier than
// maxSpendDays before now's.
func spendSince(s string, now time.Time) (time.Time, error) {
	var t time.Time
	if s == "" {
		s = "30d"
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		t = d
	} else if d, err := time.Parse(time.RFC3339, s); err == nil {
		t = d
	} else {
		span, err := kernel.ParseSpan(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("since %q is not a span (30d, 12h), a date (2026-11-01) or an RFC 3339 time", s)
		}
		t = now.Add(-span)
	}
	today := now.UTC().Truncate(oneDay)
	first := t.UTC().Truncate(oneDay)
	if earliest := today.Add(-(maxSpendDays - 1) * oneDay); first.Before(earliest) {
		first = earliest
	}
	if first.After(today) {
		first = today
	}
	return first, nil
}

// sumSpend sums rows per day and group (by, a key of spendGroupOf) for
// the days from first to now's, and gives each key group its principal
// and budget from keys. Rows outside those days are left out: a store
// answers from first on, and a row of a later day comes from a clock
// ahead of now.
func sumSpend(rows []kernel.Spend, by string, first, now time.Time, keys []kernel.Key) spendAnswer {
	groupOf := spendGroupOf[by]
	today := now.UTC().Truncate(oneDay)
	n := int(today.Sub(first)/oneDay) + 1
	a := spendAnswer{By: by, Since: first.Format(time.DateOnly), Groups: []spendGroup{}}
	for i := range n {
		a.Days = append(a.Days, first.Add(time.Duration(i)*oneDay).Format(time.DateOnly))
	}
	type acc struct {
		g     *spendGroup
		total kernel.Spend
	}
	by1 := map[string]*acc{}
	var total kernel.Spend
	for i := range rows {
		row := &rows[i]
		d := row.Day.UTC().Truncate(oneDay)
		if d.Before(first) || d.After(today) {
			continue
		}
		name := groupOf(row)
		g := by1[name]
		if g == nil {
			g = &acc{g: &spendGroup{Group: name, DailyCostUSD: make([]float64, n), DailyTokens: make([]int64, n)}}
			if by == "key" && row.KeyID != "" {
				g.g.Principal = row.Principal
			}
			by1[name] = g
		}
		at := int(d.Sub(first) / oneDay)
		g.g.DailyCostUSD[at] += row.CostUSD
		g.g.DailyTokens[at] += row.InputTokens + row.OutputTokens
		g.total.Add(row)
		total.Add(row)
	}
	for i := range keys {
		k := &keys[i]
		g := by1[k.ID]
		if g == nil {
			continue // a key that spent nothing in the period
		}
		g.g.Principal, g.g.Revoked = k.Principal, !k.Revoked.IsZero() && !now.Before(k.Revoked)
		if b := k.Budget; b.USD > 0 || b.Tokens > 0 {
			g.g.Budget = &spendBudget{USD: b.USD, Tokens: b.Tokens, PeriodSeconds: int64(b.Period / time.Second)}
		}
	}
	all := make([]*acc, 0, len(by1))
	for _, g := range by1 {
		g.g.Total = sumsOf(&g.total)
		all = append(all, g)
	}
	slices.SortFunc(all, func(x, y *acc) int {
		a, b := &x.g.Total, &y.g.Total
		return cmp.Or(cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(b.InputTokens+b.OutputTokens, a.InputTokens+a.OutputTokens),
			cmp.Compare(b.Requests, a.Requests), strings.Compare(x.g.Group, y.g.Group))
	})
	if len(all) > maxSpendGroups {
		keep, rest := all[:maxSpendGroups-1], all[maxSpendGroups-1:]
		other := &acc{g: &spendGroup{Group: "other", Merged: len(rest), DailyCostUSD: make([]float64, n), DailyTokens: make([]int64, n)}}
		for _, g := range rest {
			other.total.Add(&g.total)
			for i := range n {
				other.g.DailyCostUSD[i] += g.g.DailyCostUSD[i]
				other.g.DailyTokens[i] += g.g.DailyTokens[i]
			}
		}
		other.g.Total = sumsOf(&other.total)
		all = append(keep, other)
	}
	for _, g := range all {
		a.Groups = append(a.Groups, *g.g)
	}
	a.Total = sumsOf(&total)
	return a
}
