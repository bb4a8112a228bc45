// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"crypto/subtle"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/server/console"
	"github.com/toolgate/toolgate/kernel"
)

// newConsole returns the web console of server.ui over what b built,
// with feed already observing its kernel and gateway; nil without
// server.ui.
func newConsole(f *config.File, b *config.Built, feed *console.Feed, getenv func(string) string) (*console.Console, error) {
	if !f.Server.UI {
		return nil, nil
	}
	cfg := &console.Config{Kernel: b.Kernel, SourceOf: b.SourceOf, Feed: feed, Role: f.Server.UIRole,
		Login: func(tok string) (kernel.Principal, bool) {
			var found kernel.Principal
			ok := false
			for t, p := range b.MCP.Tokens {
				if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 {
					found, ok = p, true
				}
			}
			if !ok || tok == "" {
				return kernel.Principal{}, false
			}
			// The directory's roles: a token names a principal by id.
			for _, p := range f.Principals {
				if p.ID == found.ID {
					found.Roles = append(found.Roles, p.Roles...)
					found.Attributes = p.Attributes
				}
			}
			return found, true
		}}
	switch {
	case b.Store != nil:
		cfg.Audit = b.Store
	case b.Postgres != nil:
		cfg.Audit = b.Postgres
	}
	if cfg.Audit != nil {
		key, err := f.AuditKey(getenv)
		if err != nil {
			return nil, err
		}
		cfg.AuditKey = key
	}
	return console.New(cfg)
}
