// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel_test

import (
	"context"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/kernel"
)

// A request reserves its bound in memory against a block leased from the
// shared meter and settles on what it used; Close gives the unused part
// of the block back, so the shared meter holds what was used.
func ExampleLeasingMeter() {
	ctx := context.Background()
	shared := kernel.NewMemoryMeter() // in production SQLite, PostgreSQL or Redis
	m := kernel.NewLeasingMeter(shared, nil)
	const day = 24 * time.Hour
	starts, refused, _, err := m.ReserveAll(ctx, []kernel.Reservation{{Name: "key:k1/tokens", Amount: 1000, Limit: 1e6, Period: day}})
	fmt.Println(refused, err)
	// The request used 600 tokens of the 1000 reserved.
	fmt.Println(m.SettleAll(ctx, []kernel.Settlement{{Name: "key:k1/tokens", Delta: -400, Period: day, Start: starts[0]}}))
	fmt.Println(m.Close(ctx))
	_, ok, _, _ := shared.Reserve(ctx, "key:k1/tokens", 1e6-600, 1e6, day)
	fmt.Println("the rest fits:", ok)
	// Output:
	// -1 <nil>
	// <nil>
	// <nil>
	// the rest fits: true
}
