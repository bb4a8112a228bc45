// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/tool"
)

// TestHealthAuditFull fills serve's SQLite audit database (SQLite's
// max_page_count, as a full disk): the next call does not run, /healthz
// answers 503 while /metrics, a read, is still served, and once there is
// room again both recover.
func TestHealthAuditFull(t *testing.T) {
	ctx := context.Background()
	f, err := Parse([]byte("audit: {db: "+filepath.Join(t.TempDir(), "audit.db")+"}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.BuildServing(ctx, &BuildOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	b := s.Built
	ran := 0
	if err := b.Kernel.Registry().Add(kernel.Capability{
		Definition: tool.Definition{Name: "work"},
		Safety:     kernel.SafetyRead,
		Executor: kernel.ExecutorFunc(func(context.Context, tool.Call) (tool.Result, error) {
			ran++
			return tool.TextResult("", "done"), nil
		}),
	}); err != nil {
		t.Fatal(err)
	}
	status := func(path string) int {
		rec := httptest.NewRecorder()
		s.Server.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	call := func() error {
		_, err := b.Kernel.Call(ctx, &kernel.Request{Principal: kernel.Principal{ID: "anon"}, Call: tool.Call{Name: "work", Arguments: json.RawMessage(`{}`)}})
		return err
	}
	if err := call(); err != nil || status("/healthz") != http.StatusOK {
		t.Fatalf("before: %v, /healthz %d", err, status("/healthz"))
	}
	var pages string
	if err := b.Store.DB().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Store.DB().Exec(`PRAGMA max_page_count = ` + pages); err != nil {
		t.Fatal(err)
	}
	// Pages not yet full take a few records more. At audit.sync normal a
	// call's records are committed to the journal and reach the database
	// behind it: Flush waits for them, so that the database's failure is
	// seen before the next call.
	for i := 0; i < 1000 && !errors.Is(call(), kernel.ErrAuditUnavailable); i++ {
		b.Audit.Flush(ctx)
	}
	before := ran
	if err := call(); !errors.Is(err, kernel.ErrAuditUnavailable) || ran != before {
		t.Errorf("on the full disk: %v, %d runs", err, ran-before)
	}
	if got := status("/healthz"); got != http.StatusServiceUnavailable {
		t.Errorf("/healthz on the full disk: %d, want 503", got)
	}
	if got := status("/metrics"); got != http.StatusOK {
		t.Errorf("/metrics on the full disk: %d, want 200", got)
	}
	if _, err := b.Store.DB().Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	// The writer retries with back-off; the refused call's record goes
	// first.
	deadline := time.Now().Add(10 * time.Second)
	for b.Audit.Err() != nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := call(); err != nil || status("/healthz") != http.StatusOK {
		t.Errorf("after: %v, /healthz %d", err, status("/healthz"))
	}
}
