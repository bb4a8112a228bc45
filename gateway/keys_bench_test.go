// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/store/postgres"
	"github.com/toolgate/toolgate/store/redis"
	"github.com/toolgate/toolgate/store/sqlite"
)

// BenchmarkAdmit is what a key made at run time costs a request in the
// gateway: the model glob, rpm, tpm, a USD budget and a principal's
// budget reserved, then settled on a usage, on the in-memory limiter
// and the in-memory or SQLite meter, the latter raw or leased, or the
// Redis or PostgreSQL meter (the key itself comes cached from
// server.Auth).
func BenchmarkAdmit(b *testing.B) {
	b.Run("meter=memory", func(b *testing.B) { benchAdmit(b, nil) })
	b.Run("meter=sqlite", func(b *testing.B) {
		m, err := sqlite.OpenMeter(context.Background(), filepath.Join(b.TempDir(), "meter.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		benchAdmit(b, m)
	})
	// The SQLite meter behind a leasing meter, as config builds it: most
	// requests reserve and settle in memory against blocks leased from
	// the file.
	b.Run("meter=sqlite-leased", func(b *testing.B) {
		m, err := sqlite.OpenMeter(context.Background(), filepath.Join(b.TempDir(), "meter.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		lm := kernel.NewLeasingMeter(m, nil)
		defer lm.Close(context.Background())
		benchAdmit(b, lm)
	})
	// The shared stores of replicas, raw: a request's reservations in
	// one round trip (a script, a function call) and its settlements in
	// another. Skipped without TOOLGATE_TEST_REDIS_URL or
	// TOOLGATE_TEST_POSTGRES_DSN.
	b.Run("meter=redis", func(b *testing.B) {
		url := os.Getenv("TOOLGATE_TEST_REDIS_URL")
		if url == "" {
			b.Skip("TOOLGATE_TEST_REDIS_URL is not set")
		}
		c, err := redis.Open(context.Background(), url)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		benchAdmit(b, c.Meter())
	})
	b.Run("meter=postgres", func(b *testing.B) {
		st := benchPostgres(b)
		benchAdmit(b, st.Meter())
	})
}

// benchPostgres opens the store in a schema of its own on the server of
// TOOLGATE_TEST_POSTGRES_DSN, dropped after the benchmark.
func benchPostgres(b *testing.B) *postgres.Store {
	dsn := os.Getenv("TOOLGATE_TEST_POSTGRES_DSN")
	if dsn == "" {
		b.Skip("TOOLGATE_TEST_POSTGRES_DSN is not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("tg_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), dsn); err == nil {
			c.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
			c.Close(context.Background())
		}
	})
	u, err := neturl.Parse(dsn)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	st, err := postgres.Open(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

func benchAdmit(b *testing.B, meter kernel.Meter) {
	h, err := New(&Config{
		Meter:            meter,
		Providers:        []Provider{{Name: "local", API: APIChat, BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
		Models:           map[string]string{"gpt": "local"},
		Prices:           map[string]Price{"gpt": {Input: 1, Output: 2}},
		PrincipalBudgets: map[string]kernel.Budget{"team-a": {Tokens: 1 << 50, Period: 30 * 24 * time.Hour}},
	})
	if err != nil {
		b.Fatal(err)
	}
	_, k := kernel.NewKey("team-a")
	k.Models, k.RPM, k.TPM, k.MaxParallel, k.Budget = []string{"gpt*"}, 1<<30, 1<<40, 1<<20, kernel.Budget{USD: 1e12, Period: 24 * time.Hour}
	who := server.Identity{Principal: kernel.Principal{ID: "team-a"}, KeyID: k.ID, Key: k}
	req := &Request{Model: "gpt", MaxTokens: 16}
	r := httptest.NewRequest("POST", "/v1/chat/completions", nil).WithContext(context.Background())
	w := httptest.NewRecorder()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		s := &served{who: who, usage: Usage{InputTokens: 20, OutputTokens: 5, ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}}
		release, ok := h.admit(w, r, APIChat, req, h.providers["local"], 80, s)
		if !ok {
			b.Fatalf("refused: %d %s", w.Code, w.Body)
		}
		s.status = http.StatusOK
		release()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e3, "cpu-us/req")
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
