// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// sameAsText writes r through a textHandler and through slog's
// TextHandler and fails unless the bytes are the same.
func sameAsText(t testing.TB, r slog.Record) {
	t.Helper()
	var got, want bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	if err := newTextHandler(&got, opts).Handle(context.Background(), r.Clone()); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&want, opts).Handle(context.Background(), r.Clone()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("textHandler wrote\n%q\nslog.TextHandler\n%q", got.Bytes(), want.Bytes())
	}
}

// accessRecord is a record as the gateway's access log makes it.
func accessRecord(tm time.Time, principal, model string, status int, d time.Duration) slog.Record {
	r := slog.NewRecord(tm, slog.LevelInfo, "gateway request", 0)
	r.AddAttrs(slog.String("principal", principal), slog.String("key", ""), slog.String("front", "chat"),
		slog.String("model", model), slog.String("provider", "fake_8"), slog.Int("status", status), slog.Duration("duration", d))
	return r
}

// TestTextHandlerSame checks, for the records serve writes and for the
// ones the fast path hands on, that textHandler writes what
// slog.TextHandler does, byte for byte.
func TestTextHandlerSame(t *testing.T) {
	utc := time.Date(2026, 11, 27, 14, 38, 59, 999_999_999, time.UTC)
	zone := time.Date(2026, 1, 2, 3, 4, 5, 1_000_000, time.FixedZone("x", -(5*3600+30*60)))
	odd := slog.NewRecord(utc, slog.LevelWarn+2, "odd = \"quoted\"\\", 0)
	odd.AddAttrs(slog.String("k v", ""), slog.Bool("ok", true), slog.Uint64("n", 1<<63), slog.Int64("neg", -7), slog.Duration("d", 0))
	tests := []struct {
		name string
		r    slog.Record
	}{
		{"access", accessRecord(utc, "agent", "recorded:gen/chat-8.sse", 200, 1234567*time.Nanosecond)},
		// The same second again, written from the cached date, then in
		// another zone, which is not.
		{"access-same-second", accessRecord(utc.Add(-998*time.Millisecond), "agent", "m", 200, time.Millisecond)},
		{"access-same-second-zone", accessRecord(utc.In(zone.Location()), "agent", "m", 200, time.Millisecond)},
		{"access-zone", accessRecord(zone, "", "a=b", 502, 90*time.Second)},
		{"access-no-time", accessRecord(time.Time{}, "agent", "m", 200, time.Millisecond)},
		{"access-monotonic", accessRecord(time.Now(), "agent", "m", 200, time.Millisecond)},
		{"odd", odd},
		// The records the fast path hands to the TextHandler.
		{"unicode", func() slog.Record {
			r := slog.NewRecord(utc, slog.LevelInfo, "héllo", 0)
			r.AddAttrs(slog.String("k", "naïve\u00a0x"))
			return r
		}()},
		{"control", func() slog.Record {
			r := slog.NewRecord(utc, slog.LevelError, "line\nbreak\x7f", 0)
			r.AddAttrs(slog.String("k", "tab\there"))
			return r
		}()},
		{"any-group-float-time", func() slog.Record {
			r := slog.NewRecord(utc, slog.LevelInfo, "m", 0)
			r.AddAttrs(slog.Any("err", io.EOF), slog.Group("g", slog.Int("a", 1)), slog.Float64("f", 0.1), slog.Time("t", zone), slog.Any("b", []byte("x y")))
			return r
		}()},
		{"empty-key", func() slog.Record {
			r := slog.NewRecord(utc, slog.LevelInfo, "m", 0)
			r.AddAttrs(slog.Int("", 3), slog.Attr{})
			return r
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { sameAsText(t, tt.r) })
	}
}

// TestTextHandlerDerived checks that WithAttrs and WithGroup give the
// TextHandler's handlers, and Enabled the level it was given.
func TestTextHandlerDerived(t *testing.T) {
	var got, want bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelWarn}
	h, std := newTextHandler(&got, opts), slog.NewTextHandler(&want, opts)
	if h.Enabled(context.Background(), slog.LevelInfo) || !h.Enabled(context.Background(), slog.LevelWarn) {
		t.Error("Enabled does not follow the level")
	}
	r := slog.NewRecord(time.Unix(1, 0), slog.LevelWarn, "m", 0)
	r.AddAttrs(slog.Int("n", 1))
	h.WithAttrs([]slog.Attr{slog.String("a", "b")}).WithGroup("g").Handle(context.Background(), r)
	std.WithAttrs([]slog.Attr{slog.String("a", "b")}).WithGroup("g").Handle(context.Background(), r)
	if got.String() != want.String() {
		t.Errorf("derived handler wrote %q, want %q", got.String(), want.String())
	}
}

// FuzzTextHandlerSame holds textHandler to slog.TextHandler's bytes for
// any message, keys and values of the kinds its fast path writes.
func FuzzTextHandlerSame(f *testing.F) {
	f.Add("gateway request", "principal", "agent", int64(200), int64(1234567), int64(1795790339123456789), 0, true)
	f.Add("", "", "", int64(-1), int64(-1), int64(0), 4, false)
	f.Add("a b", "k=v", "\"x\"", int64(0), int64(1<<62), int64(-1<<62), -4, true)
	f.Add("\\", "\x00", "é", int64(1), int64(999), int64(1), 8, false)
	f.Fuzz(func(t *testing.T, msg, key, val string, n, d, unixNano int64, level int, ok bool) {
		tm := time.Unix(0, unixNano)
		if unixNano%3 == 0 {
			tm = tm.UTC()
		}
		r := slog.NewRecord(tm, slog.Level(level), msg, 0)
		r.AddAttrs(slog.String(key, val), slog.Int64("n", n), slog.Duration(key+"d", time.Duration(d)), slog.Bool("ok", ok), slog.String("v", val))
		sameAsText(t, r)
		// Another record in the same second: its date comes from the
		// cache the first one filled.
		r.Time = tm.Truncate(time.Second).Add(time.Duration(uint64(n)%1000) * time.Millisecond)
		sameAsText(t, r)
	})
}

// BenchmarkAccessLog compares the access log line through textHandler
// and through slog.TextHandler.
func BenchmarkAccessLog(b *testing.B) {
	for _, bc := range []struct {
		name string
		h    slog.Handler
	}{
		{"textHandler", newTextHandler(io.Discard, nil)},
		{"slog.TextHandler", slog.NewTextHandler(io.Discard, nil)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := accessRecord(time.Now(), "agent", "recorded:gen/chat-8.sse", 200, 1234567*time.Nanosecond)
				bc.h.Handle(context.Background(), r)
			}
		})
	}
}
