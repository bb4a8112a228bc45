// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/kernel"
)

func runSpend(e *env, args []string) error {
	fs := newFlags(e, "spend", "--config FILE [--by key|principal|model|provider|day] [--since DURATION|DATE] [--json]",
		"Report what the model gateway's requests used and cost, summed per key, principal,\n"+
			"model, provider or day: requests, input tokens (cached and cache writes among them),\n"+
			"output tokens (reasoning among them) and USD, priced by the config's pricing section\n"+
			"as each request was answered. Requests whose model had no price are counted in\n"+
			"tokens and in the UNPRICED column. Reads the keys store: keys.db, else the audit\n"+
			"log's file, or PostgreSQL with keys.store postgres (the sum of every replica's).")
	cfgPath := fs.String("config", "", "the YAML config `FILE`")
	by := fs.String("by", "key", "sum per `key|principal|model|provider|day`")
	since := fs.String("since", "30d", "from this long ago (7d, 24h) or this `DATE` (2026-11-01) or time on")
	asJSON := fs.Bool("json", false, "print JSON rows")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	group, ok := spendGroups[*by]
	if !ok {
		return fmt.Errorf("%w: --by %q is not key, principal, model, provider or day", ErrUsage, *by)
	}
	from, err := parseSince(*since, time.Now())
	if err != nil {
		return fmt.Errorf("%w: --since: %w", ErrUsage, err)
	}
	_, store, err := openStore(e, *cfgPath, (*config.File).OpenSpend, "keeps no spend")
	if err != nil {
		return err
	}
	defer store.Close()
	rows, err := store.Spend(e.ctx, from)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	sums := map[string]*kernel.Spend{}
	var order []string
	var total kernel.Spend
	for i := range rows {
		g := group(&rows[i])
		if sums[g] == nil {
			sums[g] = &kernel.Spend{}
			order = append(order, g)
		}
		sums[g].Add(&rows[i])
		total.Add(&rows[i])
	}
	sort.Strings(order)
	if *asJSON {
		type row struct {
			Group string `json:"group"`
			kernel.Spend
		}
		out := []row{}
		for _, g := range order {
			s := *sums[g]
			out = append(out, row{Group: g, Spend: s})
		}
		b, _ := json.MarshalIndent(map[string]any{"by": *by, "since": from.Format(time.DateOnly), "rows": out, "total": total}, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tREQUESTS\tINPUT\tCACHED\tOUTPUT\tREASONING\tCOST_USD\tUNPRICED\t\n", strings.ToUpper(*by))
	line := func(g string, s *kernel.Spend) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.6f\t%d\t\n", g, s.Requests, s.InputTokens, s.CachedTokens, s.OutputTokens, s.ReasoningTokens, s.CostUSD, s.Unpriced)
	}
	for _, g := range order {
		line(g, sums[g])
	}
	line("total", &total)
	return tw.Flush()
}

var spendGroups = map[string]func(*kernel.Spend) string{
	"key": func(s *kernel.Spend) string {
		if s.KeyID == "" {
			return "(none)"
		}
		return s.KeyID
	},
	"principal": func(s *kernel.Spend) string { return s.Principal },
	"model":     func(s *kernel.Spend) string { return s.Model },
	"provider":  func(s *kernel.Spend) string { return s.Provider },
	"day":       func(s *kernel.Spend) string { return s.Day.Format(time.DateOnly) },
}

// parseSince reads a span back from now (7d, 24h) or a date.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := kernel.ParseSpan(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a span (7d, 24h) or a date (2026-11-01)", s)
	}
	return now.Add(-d), nil
}
