// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/toolgate/toolgate/store/sqlite"
)

// Two limiters on one file, as two processes would open it, share one
// limit of 2 calls a minute.
func ExampleOpenLimiter() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "limits")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "toolgate-audit.db")
	var procs []*sqlite.Limiter
	for range 2 {
		l, err := sqlite.OpenLimiter(ctx, path)
		if err != nil {
			log.Fatal(err)
		}
		defer l.Close()
		procs = append(procs, l)
	}
	for i := range 3 {
		ok, _, err := procs[i%2].Allow(ctx, "agent", "refund", 2, time.Minute)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("call %d allowed: %v\n", i+1, ok)
	}
	// Output:
	// call 1 allowed: true
	// call 2 allowed: true
	// call 3 allowed: false
}
