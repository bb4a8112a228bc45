// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"log/slog"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// startCheckpoints starts the serving's checkpoint loop when the config asks
// for one (audit.checkpoint.every and sink): a checkpoint of the audit
// chain's head appended to the sink at every tick, signed with the chain's
// key and the Ed25519 key when set. The returned func stops it after a
// last checkpoint; it is a no-op without a loop.
func startCheckpoints(f *File, b *Built, getenv func(string) string, log *slog.Logger) (func(), error) {
	cpc := f.Audit.Checkpoint
	var store kernel.AuditStore
	switch {
	case b.Store != nil:
		store = b.Store
	case b.Postgres != nil:
		store = b.Postgres
	}
	if cpc.Every <= 0 || store == nil {
		return func() {}, nil
	}
	key, err := f.AuditKey(getenv)
	if err != nil {
		return nil, err
	}
	priv, err := f.CheckpointKey(getenv)
	if err != nil {
		return nil, err
	}
	loop := &kernel.CheckpointLoop{
		Take: func(ctx context.Context) (*kernel.Checkpoint, error) {
			cp, err := kernel.NewCheckpoint(ctx, store, key)
			if err == nil && priv != nil {
				cp.Sign(priv)
			}
			return cp, err
		},
		Write:  func(cp *kernel.Checkpoint) error { return kernel.AppendCheckpoint(cpc.Sink, cp) },
		Report: func(err error) { log.Warn("audit checkpoint not written", "err", err) },
	}
	ticker := time.NewTicker(cpc.Every)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		loop.Run(ctx, ticker.C)
		close(done)
	}()
	return func() {
		cancel()
		<-done
		ticker.Stop()
	}, nil
}
