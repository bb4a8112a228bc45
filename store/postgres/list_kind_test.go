// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package postgres_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
)

// TestListKind: List with a kind keeps only that kind's records ("call"
// those of a call in one record), before the limit counts them.
func TestListKind(t *testing.T) {
	s := open(t, testDSN(t))
	commitAll(t, s, kindRecords())
	tests := []struct {
		kind  kernel.RecordKind
		limit int
		want  []string // call ids
	}{
		{kernel.RecordModel, 0, []string{"req_1"}},
		{kernel.RecordProposal, 0, []string{"toolu_1"}},
		{kernel.RecordIntent, 0, []string{"toolu_2"}},
		{kernel.RecordOutcome, 0, []string{"toolu_2"}},
		{"call", 0, []string{"c9"}},
		{"call", 1, []string{"c9"}},
		{"", 2, []string{"toolu_2", "c9"}},
	}
	for _, tt := range tests {
		var got []string
		if err := s.List(context.Background(), audit.Filter{Kind: tt.kind, Limit: tt.limit}, func(r *kernel.AuditRecord) error {
			got = append(got, r.CallID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("kind %q limit %d (-want +got):\n%s", tt.kind, tt.limit, diff)
		}
	}
}
