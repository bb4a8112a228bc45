// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// mergeRec is a record of the merge tests: an intent ("i"), an outcome
// ("o"), a call ("c") or a model request ("m") of call id, with a tag in
// its arguments (an intent) or its result (an outcome).
func mergeRec(kind, id, tag string) AuditRecord {
	r := AuditRecord{Principal: "ada", Tool: "act", CallID: id, Effect: EffectAllow, Rule: "r"}
	switch kind {
	case "i":
		r.Kind, r.Args, r.Grant, r.Reason = RecordIntent, json.RawMessage(`"`+tag+`"`), "g-"+tag, "why "+tag
	case "o":
		r.Kind, r.Status, r.Result = RecordOutcome, StatusOK, tag
	case "c":
		r.Status, r.Effect, r.Result, r.IsError = StatusDenied, EffectDeny, tag, true
	case "m":
		r.Kind, r.Status, r.Result = RecordModel, StatusOK, tag
	}
	return r
}

// describe names a record by what the merge tests tell apart: its kind
// and tags.
func describe(recs []AuditRecord) []string {
	var out []string
	for _, r := range recs {
		switch r.Kind {
		case RecordIntent:
			out = append(out, "intent "+r.CallID+" "+string(r.Args))
		case RecordOutcome:
			out = append(out, "outcome "+r.CallID+" "+r.Result)
		case "":
			out = append(out, "call "+r.CallID+" "+string(r.Args)+" "+r.Result+" "+string(r.Status)+" "+r.Grant)
		default:
			out = append(out, string(r.Kind)+" "+r.CallID)
		}
	}
	return out
}

func TestCallMerger(t *testing.T) {
	tests := []struct {
		name    string
		batches [][]AuditRecord
		want    [][]string
	}{{
		name:    "a pair in one batch",
		batches: [][]AuditRecord{{mergeRec("i", "c1", "a"), mergeRec("o", "c1", "x")}},
		want:    [][]string{{`call c1 "a" x ok g-a`}},
	}, {
		name:    "an intent alone, its outcome in the next batch",
		batches: [][]AuditRecord{{mergeRec("i", "c1", "a")}, {mergeRec("o", "c1", "x")}},
		want:    [][]string{{`intent c1 "a"`}, {`outcome c1 x`}},
	}, {
		name: "two calls with one call id: first in, first out",
		batches: [][]AuditRecord{{mergeRec("i", "dup", "a"), mergeRec("i", "dup", "b"),
			mergeRec("o", "dup", "x"), mergeRec("o", "dup", "y")}},
		want: [][]string{{`call dup "a" x ok g-a`, `call dup "b" y ok g-b`}},
	}, {
		name: "interleaved calls, at the outcomes' places",
		batches: [][]AuditRecord{{mergeRec("i", "c1", "a"), mergeRec("m", "req", ""), mergeRec("i", "c2", "b"),
			mergeRec("o", "c2", "y"), mergeRec("c", "c3", "denied"), mergeRec("o", "c1", "x")}},
		want: [][]string{{"model req", `call c2 "b" y ok g-b`, "call c3  denied denied ", `call c1 "a" x ok g-a`}},
	}, {
		name: "an outcome whose intent was in an earlier batch pairs with it first",
		batches: [][]AuditRecord{{mergeRec("i", "dup", "a")},
			{mergeRec("i", "dup", "b"), mergeRec("o", "dup", "x"), mergeRec("o", "dup", "y")},
			{mergeRec("i", "dup", "c"), mergeRec("o", "dup", "z")}},
		want: [][]string{{`intent dup "a"`}, {"outcome dup x", `call dup "b" y ok g-b`}, {`call dup "c" z ok g-c`}},
	}, {
		name:    "an outcome with no intent, an intent with none",
		batches: [][]AuditRecord{{mergeRec("o", "c0", "x"), mergeRec("i", "c1", "a")}, {mergeRec("o", "c2", "y")}},
		want:    [][]string{{"outcome c0 x", `intent c1 "a"`}, {"outcome c2 y"}},
	}, {
		name: "another parent or principal is another call",
		batches: [][]AuditRecord{{mergeRec("i", "c1", "a"), func() AuditRecord {
			r := mergeRec("o", "c1", "x")
			r.Parent = "req"
			return r
		}(), func() AuditRecord {
			r := mergeRec("o", "c1", "y")
			r.Principal = "bob"
			return r
		}()}},
		want: [][]string{{`intent c1 "a"`, "outcome c1 x", "outcome c1 y"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m CallMerger
			for i, b := range tt.batches {
				if diff := cmp.Diff(tt.want[i], describe(m.Merge(b))); diff != "" {
					t.Errorf("batch %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// TestCallMergerFields: a merged record holds the intent's decision,
// justification, arguments and grant and the outcome's status, result,
// error flag, code and time.
func TestCallMergerFields(t *testing.T) {
	t0 := time.Unix(1800000000, 0).UTC()
	in := AuditRecord{Kind: RecordIntent, Time: t0, Principal: "ada", Tool: "act", CallID: "c1", Parent: "req",
		Effect: EffectAllow, Rule: "r", Code: "c-in", Reason: "fine", Justification: "needed",
		Args: json.RawMessage(`{"n":1}`), Grant: "g1"}
	out := AuditRecord{Kind: RecordOutcome, Time: t0.Add(time.Second), Principal: "ada", Tool: "act", CallID: "c1", Parent: "req",
		Status: StatusToolError, Effect: EffectAllow, Rule: "r", Code: "c-out", Reason: "fine", Result: "boom", IsError: true}
	var m CallMerger
	got := m.Merge([]AuditRecord{in, out})
	want := []AuditRecord{{Time: t0.Add(time.Second), Principal: "ada", Tool: "act", CallID: "c1", Parent: "req",
		Status: StatusToolError, Effect: EffectAllow, Rule: "r", Code: "c-out", Reason: "fine", Justification: "needed",
		Args: json.RawMessage(`{"n":1}`), Result: "boom", IsError: true, Grant: "g1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestVerifyMergedAndSplit verifies a chain mixing calls written as one
// record and as an intent and an outcome: intact, the intent left alone
// listed as an unknown outcome; a grant is covered by the hash.
func TestVerifyMergedAndSplit(t *testing.T) {
	ctx := context.Background()
	var m CallMerger
	batches := [][]AuditRecord{
		{mergeRec("i", "c1", "a"), mergeRec("o", "c1", "x"), mergeRec("i", "c2", "b")},
		{mergeRec("i", "c3", "c"), mergeRec("o", "c2", "y"), mergeRec("o", "c3", "z"), mergeRec("i", "c4", "d")},
	}
	var chain []AuditRecord
	for _, b := range batches {
		chain = append(chain, m.Merge(b)...)
	}
	h := newChainHasher([]byte("key"))
	var prev Hash
	for i := range chain {
		chain[i].Seq, chain[i].Prev, chain[i].Time = int64(i+1), prev, time.Unix(1800000000+int64(i), 0)
		chain[i].Hash = h.sum(&chain[i])
		prev = chain[i].Hash
	}
	store := NewMemoryAuditStore()
	if err := store.Append(ctx, chain); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyChain(ctx, store, []byte("key"))
	if err != nil || !rep.OK() || rep.Records != 5 || rep.UnknownCount != 1 || rep.Unknown[0].CallID != "c4" {
		t.Fatalf("%v %v; want 5 records intact (c1, c3 merged; c2 apart; c4 unknown)", err, rep)
	}
	if diff := cmp.Diff([]string{`call c1 "a" x ok g-a`, `intent c2 "b"`, "outcome c2 y", `call c3 "c" z ok g-c`, `intent c4 "d"`}, describe(chain)); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
	for _, i := range []int{0, 1} { // a merged call's grant, an intent's
		edited := store.Records()
		edited[i].Grant = "g-forged"
		store.SetRecords(edited)
		rep, _ := VerifyChain(ctx, store, []byte("key"))
		if rep.OK() || !strings.Contains(rep.String(), "content does not match its hash") {
			t.Errorf("record %d with its grant edited: %s", i+1, rep)
		}
		store.SetRecords(chain)
	}
}

// TestChainHashGolden: records without a grant hash as they did before
// the field was added (the hashes were computed by the code before), so
// old chains verify; a grant changes the hash.
func TestChainHashGolden(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	recs := []AuditRecord{
		{Seq: 1, Time: at, Principal: "ada", Tool: "touch", CallID: "c1", Status: StatusOK, Effect: EffectAllow, Rule: "r", Args: json.RawMessage(`{"a":1}`), Result: "done"},
		{Seq: 2, Time: at, Principal: "ada", Tool: "touch", CallID: "c2", Effect: EffectAllow, Kind: RecordIntent, Parent: "req1", Result: "grant g1"},
	}
	want := map[string][]string{
		"":  {"74d4355cff86f2986c5f8b51d13e50322e526c62c093f2fae8cee0b125b0679f", "4486a1d89ccd1ae3056a1c724dfab52ba7fb0528a101495a1ebd5f04371f1f74"},
		"k": {"073d03769cb94cd206bcc0e0c5f597f9fa4add3749c74c60c17e68a794505444", "ee57e3d6e7b3dc98b9ba90a53ec57057f0c0f04bd5e8cbb4c41bd09d1d4e8b36"},
	}
	for key, hashes := range want {
		h := newChainHasher([]byte(key))
		for i := range recs {
			s := h.sum(&recs[i])
			if got := hex.EncodeToString(s[:]); got != hashes[i] {
				t.Errorf("key %q, record %d: hash %s, want %s", key, i+1, got, hashes[i])
			}
			g := recs[i]
			g.Grant = "g1"
			if h.sum(&g) == s {
				t.Errorf("key %q, record %d: a grant does not change the hash", key, i+1)
			}
		}
	}
	// A grant is not confused with a kind or a parent moved.
	a := AuditRecord{Kind: RecordIntent, Parent: "p", Grant: ""}
	b := AuditRecord{Kind: RecordIntent, Grant: "p"}
	if h := newChainHasher(nil); h.sum(&a) == h.sum(&b) {
		t.Error("a parent and a grant of the same text hash alike")
	}
}
