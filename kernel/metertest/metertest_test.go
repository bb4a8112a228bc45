// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package metertest_test

import (
	"testing"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/metertest"
)

// The contract on the kernel's own meter, one handle twice.
func TestMemoryMeter(t *testing.T) {
	m := kernel.NewMemoryMeter()
	metertest.Run(t, m, m)
}

// The contract on a leasing meter over the kernel's own meter: one
// process, so nothing is leased elsewhere.
func TestLeasingMeter(t *testing.T) {
	m := kernel.NewLeasingMeter(kernel.NewMemoryMeter(), nil)
	defer m.Close(t.Context())
	metertest.Run(t, m, m)
}
