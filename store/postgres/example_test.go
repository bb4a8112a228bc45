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
