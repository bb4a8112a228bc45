// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer counts the writes it gets.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.b.Write(p)
}

func (b *lockedBuffer) read() (string, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String(), b.writes
}

func TestLogWriter(t *testing.T) {
	out := &lockedBuffer{}
	lw := newLogWriter(out)
	log := slog.New(newFlushingHandler(slog.NewTextHandler(lw, nil), lw))

	log.Info("starting")
	if s, _ := out.read(); !strings.Contains(s, "starting") {
		t.Fatalf("before buffering, a line is written at once; got %q", s)
	}

	lw.SetBuffered(true)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() { log.Info("gateway request", "n", i) })
	}
	wg.Wait()
	if s, _ := out.read(); strings.Contains(s, "gateway request") {
		t.Fatalf("buffered info lines were written before the flush interval: %q", s)
	}
	log.Warn("backend down")
	s, writes := out.read()
	if n := strings.Count(s, "gateway request"); n != 100 || !strings.Contains(s, "backend down") {
		t.Fatalf("a warning flushes every line before it and itself: %d request lines, %q", n, s)
	}
	if writes > 3 {
		t.Errorf("%d writes for 102 lines, want the buffered lines in one", writes)
	}
	if strings.Index(s, "backend down") < strings.LastIndex(s, "gateway request") {
		t.Errorf("the warning came before lines logged ahead of it")
	}

	log.Info("later")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if s, _ := out.read(); strings.Contains(s, "later") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a buffered line was not written by the timer")
		}
		time.Sleep(logFlushEvery / 5)
	}

	// A full buffer is written at once.
	_, before := out.read()
	big := strings.Repeat("x", 1024)
	for range logBufferBytes/1024 + 1 {
		log.Info(big)
	}
	if _, after := out.read(); after == before {
		t.Errorf("%d KiB of lines stayed in the buffer", logBufferBytes/1024+1)
	}

	log.Info("last")
	lw.SetBuffered(false)
	if s, _ := out.read(); !strings.HasSuffix(s, "msg=last\n") {
		t.Errorf("ending buffering did not flush: ends %q", s[max(0, len(s)-40):])
	}
}
