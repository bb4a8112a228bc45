// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel_test

import (
	"context"
	"fmt"
	"log"

	"github.com/toolgate/toolgate/kernel"
)

// A checkpoint kept away from the store finds records cut from the end,
// which the store's own head, rewritten with them, hides.
func ExampleVerifyChainCheckpoint() {
	ctx := context.Background()
	key := []byte("an audit key of thirty-two bytes")
	write := func(store *kernel.MemoryAuditStore, principals ...string) {
		l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: store, Key: key})
		if err != nil {
			log.Fatal(err)
		}
		for _, p := range principals {
			l.Append(ctx, &kernel.AuditRecord{Principal: p, Tool: "refund", Status: kernel.StatusOK})
		}
		if err := l.Close(ctx); err != nil {
			log.Fatal(err)
		}
	}
	store := kernel.NewMemoryAuditStore()
	write(store, "ada", "bob", "cy")
	cp, err := kernel.NewCheckpoint(ctx, store, key)
	if err != nil {
		log.Fatal(err)
	}

	// Someone with the store keeps the first two records and sets the
	// head back to the second: the chain alone looks intact.
	cut := kernel.NewMemoryAuditStore()
	cut.Append(ctx, store.Records()[:2])
	rep, _ := kernel.VerifyChain(ctx, cut, key)
	fmt.Println(rep)
	rep, _ = kernel.VerifyChainCheckpoint(ctx, cut, key, cp)
	fmt.Println(rep.Problems[0].Seq, rep.Problems[0].Kind)
	// Output:
	// audit log intact: 2 records, head 2
	// 3 truncated
}
