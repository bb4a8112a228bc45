// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"testing"
	"time"
)

func TestKeyUse(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		key    Key
		model  string
		usable bool
		allows bool
	}{
		{name: "any_model", key: Key{ID: "k"}, model: "gpt-5", usable: true, allows: true},
		{name: "glob", key: Key{ID: "k", Models: []string{"gpt*", "claude-sonnet-*"}}, model: "claude-sonnet-4-5", usable: true, allows: true},
		{name: "glob_miss", key: Key{ID: "k", Models: []string{"gpt*"}}, model: "claude", usable: true, allows: false},
		{name: "expired", key: Key{ID: "k", Expires: now}, model: "m", usable: false, allows: true},
		{name: "expires_later", key: Key{ID: "k", Expires: now.Add(time.Second)}, model: "m", usable: true, allows: true},
		{name: "revoked", key: Key{ID: "k", Revoked: now.Add(-time.Second)}, model: "m", usable: false, allows: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.key.Check(now); (err == nil) != tt.usable {
				t.Errorf("Check: %v, want usable %v", err, tt.usable)
			}
			if got := tt.key.AllowsModel(tt.model); got != tt.allows {
				t.Errorf("AllowsModel(%q) = %v", tt.model, got)
			}
		})
	}
	for _, bad := range []Key{{}, {Principal: "p", RPM: -1}, {Principal: "p", Models: []string{"["}}, {Principal: "p", Models: []string{" "}}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
}
