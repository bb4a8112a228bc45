// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditSync checks audit.sync: each mode reaches the SQLite
// connection's synchronous pragma, and an unknown mode is a config error
// naming the key.
func TestAuditSync(t *testing.T) {
	tests := []struct {
		name   string
		sync   string
		pragma int // PRAGMA synchronous: 1 NORMAL, 2 FULL
		err    string
	}{
		{"default", "", 1, ""},
		{"normal", "normal", 1, ""},
		{"full", "full", 2, ""},
		{"unknown", "sometimes", 0, `audit.sync: audit.sync "sometimes" is not normal or full`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "audit.db")
			yaml := "audit: {db: " + db + "}"
			if tt.sync != "" {
				yaml = "audit: {db: " + db + ", sync: " + tt.sync + "}"
			}
			f, err := Parse([]byte(yaml), "t.yaml")
			var b *Built
			if err == nil {
				b, err = f.Build(context.Background(), nil)
			}
			if tt.err != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want a config error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close(context.Background())
			var got int
			if err := b.Store.DB().QueryRow(`PRAGMA synchronous`).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.pragma {
				t.Errorf("PRAGMA synchronous = %d, want %d", got, tt.pragma)
			}
		})
	}
}
