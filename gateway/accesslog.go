// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"log/slog"
	"time"
)

// AccessLine is one request of the gateway's access log: the fields of
// the "gateway request" record it logs at info level for every request.
type AccessLine struct {
	Time      time.Time
	Principal string
	Key       string // the key's id, "" for none
	Front     string
	Model     string
	Provider  string
	Status    int
	Duration  time.Duration
	Error     string // what failed, "" when nothing did
}

// AccessMessage is the message of the access log's records.
const AccessMessage = "gateway request"

// Record returns the record the gateway logs for a: [AccessMessage] at
// info level, with principal, key, front, model, provider, status,
// duration and, when something failed, error, in that order.
func (a AccessLine) Record() slog.Record {
	r := slog.NewRecord(a.Time, slog.LevelInfo, AccessMessage, 0)
	r.AddAttrs(slog.String("principal", a.Principal), slog.String("key", a.Key), slog.String("front", a.Front),
		slog.String("model", a.Model), slog.String("provider", a.Provider), slog.Int("status", a.Status), slog.Duration("duration", a.Duration))
	if a.Error != "" {
		r.AddAttrs(slog.String("error", a.Error))
	}
	return r
}

// AccessHandler is a log handler that writes an access line from its
// fields: what Handle writes for a.Record(), without the record being
// built. The gateway hands its access log to a Logger's handler that is
// one through HandleAccess, and to any other through Handle. Building
// the record and reading its attributes back cost as much code on a
// request's path as the rest of the line.
type AccessHandler interface {
	slog.Handler
	HandleAccess(ctx context.Context, a AccessLine) error
}
