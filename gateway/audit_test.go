// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/kernel"
)

// failingStore is an audit store whose writes fail while fail is set, as
// a full disk's do.
type failingStore struct {
	*kernel.MemoryAuditStore
	fail atomic.Bool
}

func (s *failingStore) Append(ctx context.Context, recs []kernel.AuditRecord) error {
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.MemoryAuditStore.Append(ctx, recs)
}

// TestModelRecordCommitted: a model request's record is in the audit log
// before its answer ends — the store holds it when the client has read
// the answer, with nothing flushed — and when it cannot be committed the
// client gets its API's error instead of the answer's end: a 503 in the
// front door's shape, or the stream's error event.
func TestModelRecordCommitted(t *testing.T) {
	for _, api := range []gateway.API{gateway.APIMessages, gateway.APIResponses, gateway.APIChat} {
		for _, stream := range []bool{false, true} {
			t.Run(string(api)+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
				st := &failingStore{MemoryAuditStore: kernel.NewMemoryAuditStore()}
				log, err := kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: st})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { log.Close(context.Background()) })
				m := &mediated{rig: newRig(t, func(cfg *gateway.Config) { cfg.Audit = log })}
				b := m.backends[gateway.APIChat]

				b.Push(chatTextReply("All tidy."))
				resp, body := m.post(t, api, agentRequest(api, stream))
				if resp.StatusCode != 200 || !strings.Contains(body, "All tidy.") {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				recs := st.Records()
				if len(recs) != 1 || recs[0].Kind != kernel.RecordModel || recs[0].Status != kernel.StatusOK {
					t.Fatalf("records once the answer was read: %+v; want the model record", recs)
				}

				st.fail.Store(true)
				b.Push(chatTextReply("Withheld."))
				resp, body = m.post(t, api, agentRequest(api, stream))
				if !strings.Contains(body, "could not record this request in its audit log") {
					t.Errorf("the client was not told the request could not be recorded: %d %s", resp.StatusCode, body)
				}
				if !stream && (resp.StatusCode != 503 || strings.Contains(body, "Withheld.")) {
					t.Errorf("status %d, want 503 without the answer: %s", resp.StatusCode, body)
				}
				if stream && resp.StatusCode != 200 {
					t.Errorf("status %d: the stream had begun", resp.StatusCode)
				}
			})
		}
	}
}
