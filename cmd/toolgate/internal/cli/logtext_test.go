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

	"github.com/toolgate/toolgate/gateway"
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

// accessSame writes a through HandleAccess, of a textHandler and of the
// flushingHandler serve puts over it, and a.Record() through slog's
// TextHandler, and fails unless the bytes are the same.
func accessSame(t testing.TB, a gateway.AccessLine) {
	t.Helper()
	var got, flushed, want bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	if err := newTextHandler(&got, opts).HandleAccess(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	lw := newLogWriter(&flushed)
	if err := newFlushingHandler(newTextHandler(lw, opts), lw).HandleAccess(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&want, opts).Handle(context.Background(), a.Record()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) || !bytes.Equal(flushed.Bytes(), want.Bytes()) {
		t.Errorf("HandleAccess wrote\n%q\nthrough flushingHandler\n%q\nslog.TextHandler\n%q", got.Bytes(), flushed.Bytes(), want.Bytes())
	}
}

// TestHandleAccessSame checks that the access line written from its
// fields is the record the gateway would otherwise log, as
// slog.TextHandler writes it.
func TestHandleAccessSame(t *testing.T) {
	utc := time.Date(2026, 11, 27, 14, 38, 59, 999_999_999, time.UTC)
	zone := time.Date(2026, 1, 2, 3, 4, 5, 1_000_000, time.FixedZone("x", -(5*3600+30*60)))
	for _, tt := range []struct {
		name string
		a    gateway.AccessLine
	}{
		{"plain", gateway.AccessLine{Time: utc, Principal: "agent", Front: "chat", Model: "recorded:gen/chat-8.sse", Provider: "fake_8", Status: 200, Duration: 1234567}},
		{"key-and-error", gateway.AccessLine{Time: zone, Principal: "agent", Key: "k_01", Front: "messages", Model: "a=b", Provider: "p q", Status: 502, Duration: 90 * time.Second, Error: `the model backend answered 503 "busy"`}},
		{"empty", gateway.AccessLine{}},
		{"monotonic", gateway.AccessLine{Time: time.Now(), Principal: "agent", Status: 200, Duration: time.Millisecond}},
		{"unicode", gateway.AccessLine{Time: utc, Principal: "naïve", Model: "m", Status: 200}},
		{"control-in-error", gateway.AccessLine{Time: utc, Principal: "agent", Status: 400, Error: "line\nbreak"}},
		{"negative", gateway.AccessLine{Time: utc, Status: -1, Duration: -5}},
	} {
		t.Run(tt.name, func(t *testing.T) { accessSame(t, tt.a) })
	}
}

// FuzzHandleAccessSame holds HandleAccess to slog.TextHandler's bytes for
// a.Record() on any fields.
func FuzzHandleAccessSame(f *testing.F) {
	f.Add("agent", "", "recorded:gen/chat-8.sse", "", 200, int64(1234567), int64(1795790339123456789))
	f.Add("", "k", "a b", "the model backend answered 503", 502, int64(-1), int64(0))
	f.Add("é", "\x00", "\"x\"", "=", -7, int64(1<<62), int64(-1<<62))
	f.Fuzz(func(t *testing.T, principal, key, model, errText string, status int, d, unixNano int64) {
		tm := time.Unix(0, unixNano)
		if unixNano%3 == 0 {
			tm = tm.UTC()
		}
		accessSame(t, gateway.AccessLine{Time: tm, Principal: principal, Key: key, Front: "chat", Model: model, Provider: key + model,
			Status: status, Duration: time.Duration(d), Error: errText})
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
