// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/store/postgres"
)

// Each replica opens the store and an audit log over it; their records
// form one chain. (Not run: it needs a server.)
func ExampleOpen() {
	ctx := context.Background()
	st, err := postgres.Open(ctx, os.Getenv("TOOLGATE_AUDIT_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st, Key: []byte(os.Getenv("TOOLGATE_AUDIT_KEY"))})
	if err != nil {
		log.Fatal(err)
	}
	l.Append(ctx, &kernel.AuditRecord{Principal: "ada", Tool: "refund", Status: kernel.StatusOK})
	if err := l.Close(ctx); err != nil {
		log.Fatal(err)
	}
	rep, err := kernel.VerifyChain(ctx, st, []byte(os.Getenv("TOOLGATE_AUDIT_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep)
}

// Keys made at run time kept where every replica finds them: one made
// through one replica is used through another. (Not run: it needs a
// server.)
func ExampleStore_Keys() {
	ctx := context.Background()
	st, err := postgres.Open(ctx, os.Getenv("TOOLGATE_AUDIT_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	secret, k := kernel.NewKey("team-a")
	k.Models, k.TPM = []string{"gpt*"}, 100000
	if err := st.Keys().CreateKey(ctx, k); err != nil {
		log.Fatal(err)
	}
	fmt.Println("shown once:", secret)
	found, err := st.Keys().KeyByHash(ctx, kernel.HashKey(secret))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(found.ID == k.ID, found.Principal)
}
