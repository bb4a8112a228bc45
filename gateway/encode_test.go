// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate/codec/anthropic"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/codec/responses"
	"github.com/toolgate/toolgate/internal/sse"
	"github.com/toolgate/toolgate/tool"
)

var fronts = []API{APIChat, APIMessages, APIResponses}

// encodeAll writes events through front door api's encoder and returns
// the stream's bytes.
func encodeAll(t testing.TB, api API, events []Event, streamErr error) []byte {
	var buf bytes.Buffer
	enc, err := NewStreamEncoder(api, sse.NewWriter(&buf), &EncodeOptions{IncludeUsage: true, Created: 1700000000})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			t.Fatalf("encode %s: %v", e.Kind, err)
		}
	}
	if streamErr != nil {
		// What the handler does when the backend's stream breaks.
		if err := enc.Encode(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: "backend stream failed"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// carried is what front door api can say of a turn: the part of it that
// must come back unchanged when the front door's stream is read again.
type carried struct {
	Text, Reasoning, Signature string
	Calls                      []Call
	Finish                     Finish
	Usage                      Usage
	Failed                     bool
}

func carriedBy(api API, tr *Turn, failed bool) carried {
	c := carried{Text: tr.Text, Reasoning: tr.Reasoning, Calls: tr.Calls, Finish: tr.Finish, Usage: tr.Usage, Failed: failed || tr.Err != nil}
	if c.Failed {
		// A failed turn's finish, usage and unfinished calls are not
		// promised: only what was said before the failure, and that it
		// failed.
		c.Finish, c.Usage = "", Usage{}
		c.Calls = nil
		for _, call := range tr.Calls {
			c.Calls = append(c.Calls, Call{ID: call.ID, Name: call.Name})
		}
		return c
	}
	if len(c.Calls) > 0 && (c.Finish == FinishStop || c.Finish == "") {
		c.Finish = FinishToolCalls
	}
	u := &c.Usage
	switch api {
	case APIChat:
		// No signatures; refusals are content_filter; no cache writes.
		if c.Finish == FinishRefusal {
			c.Finish = FinishContentFilter
		}
		u.CacheWriteTokens = -1
		u.InputTokens, u.OutputTokens = known(u.InputTokens), known(u.OutputTokens)
	case APIMessages:
		c.Signature = tr.Signature
		if c.Finish == FinishContentFilter {
			c.Finish = FinishRefusal
		}
		if c.Finish == FinishError {
			c.Finish = FinishStop
		}
		u.ReasoningTokens = -1
		u.InputTokens, u.OutputTokens = known(u.InputTokens), known(u.OutputTokens)
		u.CacheReadTokens, u.CacheWriteTokens = known(u.CacheReadTokens), known(u.CacheWriteTokens)
		if u.CacheReadTokens+u.CacheWriteTokens > u.InputTokens {
			u.InputTokens = u.CacheReadTokens + u.CacheWriteTokens
		}
	case APIResponses:
		c.Signature = tr.Signature
		switch c.Finish {
		case FinishRefusal, FinishContentFilter, FinishPause, FinishError:
			c.Finish = FinishStop
		}
		if len(c.Calls) > 0 && c.Finish == FinishStop {
			c.Finish = FinishToolCalls
		}
		u.CacheWriteTokens = -1
		u.InputTokens, u.OutputTokens = known(u.InputTokens), known(u.OutputTokens)
		u.CacheReadTokens, u.ReasoningTokens = known(u.CacheReadTokens), known(u.ReasoningTokens)
	}
	return c
}

// TestFrontDoorRoundTrip sends every recorded stream out of every front
// door and reads the result back with that API's own decoder: text,
// reasoning, calls with their arguments, finish and usage must survive as
// far as the front door's API can carry them, and the stream must be the
// same whichever way the backend's bytes were cut.
func TestFrontDoorRoundTrip(t *testing.T) {
	for _, s := range recordedStreams(t) {
		tr, events, err := decodeStream(t, s.api, s.body, nil)
		for _, front := range fronts {
			t.Run(s.name+"->"+string(front), func(t *testing.T) {
				out := encodeAll(t, front, events, err)
				back, _, berr := decodeStream(t, front, out, nil)
				if berr != nil {
					t.Fatalf("reading the front door's stream: %v\n%s", berr, out)
				}
				want, got := carriedBy(front, tr, err != nil), carriedBy(front, back, false)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-backend +front door)\n%s", diff)
				}
				for i := range uint64(3) {
					_, ev2, _ := decodeStream(t, s.api, s.body, rand.New(rand.NewPCG(i, 9)))
					if out2 := encodeAll(t, front, ev2, err); !bytes.Equal(out, out2) {
						t.Fatalf("chunking %d changed the front door's bytes", i)
					}
				}
			})
		}
	}
}

// TestEncoderGrammar pins each front door's exact bytes for one scripted
// turn that holds everything: reasoning with a signature, text, two calls
// (one without arguments), usage sent twice and a tool-call finish.
func TestEncoderGrammar(t *testing.T) {
	u1 := Usage{InputTokens: 100, OutputTokens: -1, ReasoningTokens: -1, CacheReadTokens: 40, CacheWriteTokens: 10}
	u2 := Usage{InputTokens: -1, OutputTokens: 30, ReasoningTokens: 12, CacheReadTokens: -1, CacheWriteTokens: -1}
	events := []Event{
		{Kind: EventStart, ID: "resp_1", Model: "backend-model"},
		{Kind: EventUsage, Usage: &u1},
		{Kind: EventReasoning, Text: "Think \"quoted\"\n"},
		{Kind: EventSignature, Text: "sig=="},
		{Kind: EventText, Text: "Checking."},
		{Kind: EventCall, Index: 0, ID: "call_a", Name: "get_weather"},
		{Kind: EventArguments, Index: 0, Text: `{"city":`},
		{Kind: EventArguments, Index: 0, Text: `"Paris"}`},
		{Kind: EventCallEnd, Index: 0},
		{Kind: EventCall, Index: 1, ID: "call_b", Name: "now"},
		{Kind: EventArguments, Index: 1, Text: `{}`},
		{Kind: EventCallEnd, Index: 1},
		{Kind: EventUsage, Usage: &u2},
		{Kind: EventFinish, Finish: FinishStop, Text: "stop"},
	}
	golden := filepath.Join("testdata", "grammar.txtar")
	ar, err := txtar.ParseFile(golden)
	if err != nil && !*update {
		t.Fatal(err)
	}
	if *update {
		ar = &txtar.Archive{Comment: []byte("One scripted turn written by each front door's encoder.\n" +
			"Bugs pinned: blocks closed before the next opens; tool indexes from 0 with\n" +
			"id and name in the first delta; a turn with calls ends tool_calls/tool_use\n" +
			"although the backend said stop; usage merged (later wins) and sent last;\n" +
			"Anthropic input_tokens without the cache tokens; the signature inside the\n" +
			"thinking block it belongs to.\n" +
			"Rewrite with: go test ./gateway -run TestEncoderGrammar -update\n")}
	}
	want := map[string][]byte{}
	for _, f := range ar.Files {
		want[f.Name] = f.Data
	}
	var files []txtar.File
	for _, front := range fronts {
		var buf bytes.Buffer
		enc, err := NewStreamEncoder(front, sse.NewWriter(&buf), &EncodeOptions{Model: "public-model", IncludeUsage: true, Created: 1700000000})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		// Every data line must be JSON (or [DONE]).
		r := sse.NewReader(bytes.NewReader(buf.Bytes()), nil)
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			if string(ev.Data) != "[DONE]" && !json.Valid(ev.Data) {
				t.Errorf("%s: invalid JSON event: %s", front, ev.Data)
			}
		}
		files = append(files, txtar.File{Name: string(front), Data: buf.Bytes()})
		if !*update {
			if diff := cmp.Diff(string(want[string(front)]), buf.String()); diff != "" {
				t.Errorf("%s (-want +got)\n%s", front, diff)
			}
		}
	}
	if *update {
		ar.Files = files
		if err := writeFile(golden, txtar.Format(ar)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEncodeResponseOracle writes every recorded turn as each front
// door's non-streaming body and reads it back with the provider codecs
// (codec/openai, codec/anthropic, codec/responses), written separately
// from the gateway: text, reasoning, calls and the stop reason must
// match.
func TestEncodeResponseOracle(t *testing.T) {
	decoders := map[API]func([]byte) (*tool.Response, error){
		APIChat:      openai.DecodeResponse,
		APIMessages:  anthropic.DecodeResponse,
		APIResponses: responses.DecodeResponse,
	}
	for _, s := range recordedStreams(t) {
		tr, _, err := decodeStream(t, s.api, s.body, nil)
		if err != nil || tr.Err != nil {
			continue
		}
		for _, front := range fronts {
			t.Run(s.name+"->"+string(front), func(t *testing.T) {
				body, err := EncodeResponse(front, tr, &EncodeOptions{Created: 1700000000})
				if err != nil {
					t.Fatal(err)
				}
				resp, err := decoders[front](body)
				if err != nil {
					t.Fatalf("the codec cannot read the body: %v\n%s", err, body)
				}
				if resp.Content != tr.Text {
					t.Errorf("text %q, want %q", resp.Content, tr.Text)
				}
				if resp.Reasoning != tr.Reasoning {
					t.Errorf("reasoning %q, want %q", resp.Reasoning, tr.Reasoning)
				}
				if len(resp.Calls) != len(tr.Calls) {
					t.Fatalf("%d calls, want %d", len(resp.Calls), len(tr.Calls))
				}
				for i, c := range resp.Calls {
					var got, want any
					if json.Unmarshal(c.Arguments, &got) != nil || json.Unmarshal(tr.Calls[i].Arguments, &want) != nil {
						t.Fatalf("call %d: arguments not JSON", i)
					}
					if c.ID != tr.Calls[i].ID || c.Name != tr.Calls[i].Name || !cmp.Equal(got, want) {
						t.Errorf("call %d = %s %s %s, want %+v", i, c.ID, c.Name, c.Arguments, tr.Calls[i])
					}
				}
				if len(tr.Calls) > 0 && resp.Stop != tool.StopToolCalls {
					t.Errorf("stop %q for a turn with calls", resp.Stop)
				}
			})
		}
	}
}
