// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/kernel/metertest"
	"github.com/toolgate/toolgate/store/sqlite"
)

func TestMeters(t *testing.T) {
	t.Run("sqlite_two_handles", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "meter.db")
		a, err := sqlite.OpenMeter(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := sqlite.OpenMeter(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		metertest.Run(t, a, b)
	})
}
