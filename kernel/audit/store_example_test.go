// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package audit_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "audit")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := audit.Open(ctx, filepath.Join(dir, "audit.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	l, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range []string{"ada", "bob", "cy"} {
		l.Append(ctx, &kernel.AuditRecord{Principal: p, Tool: "get", Status: kernel.StatusOK})
	}
	if err := l.Close(ctx); err != nil {
		log.Fatal(err)
	}
	rep, _ := kernel.VerifyChain(ctx, st, nil)
	fmt.Println(rep)

	st.DB().Exec(`DELETE FROM audit WHERE seq = 2`)
	rep, _ = kernel.VerifyChain(ctx, st, nil)
	fmt.Println(rep)
	// Output:
	// audit log intact: 3 records, head 3
	// audit log damaged: 2 records, head 3
	//   record 2 deleted: missing from the log
}
