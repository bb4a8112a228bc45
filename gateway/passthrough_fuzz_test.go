// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzPassthrough feeds arbitrary backend streams to the gateway with
// the same-API fast path on and off (Chat, Messages and Responses) and wants the same answer and the
// same records: the fast path must refuse, repair and relay exactly what
// the decoder does. mode's low bits pick a ptConfig; its high bit frames
// body as data payloads, one a line, after a first Chat chunk (the fast
// path only starts once the stream has), so that the fuzzer spends its time
// inside the JSON rather than the SSE framing.
func FuzzPassthrough(f *testing.F) {
	for i, c := range ptConfigs {
		api := c.api
		if api == "" {
			api = APIChat
		}
		for j, st := range streamsFor(f, api) {
			if j%len(ptConfigs) == i%len(ptConfigs) || api != APIChat && j%2 == i%2 {
				f.Add(st.body, uint64(j), uint8(i))
			}
		}
	}
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`+"\n"+`{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`+"\n[DONE]"), uint64(1), uint8(0x80))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]}}]}`+"\n"+`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"k\":\"\\u00e9\"}"}}]}}]}`), uint64(2), uint8(0x81))
	// A pair of gateways per config, reused: a fresh one per input would
	// spend the fuzzer's time building gateways.
	var slows, fasts []*ptGateway
	for _, c := range ptConfigs {
		slows, fasts = append(slows, newPTGateway(f, c, true)), append(fasts, newPTGateway(f, c, false))
	}
	f.Cleanup(func() {
		for i := range slows {
			slows[i].close()
			fasts[i].close()
		}
	})
	f.Fuzz(func(t *testing.T, body []byte, seed uint64, mode uint8) {
		if mode&0x80 != 0 {
			lines := bytes.Split(body, []byte("\n"))
			body = sseBody(append([][]byte{ptStart()}, lines...)...)
		}
		i := int(mode&0x7f) % len(ptConfigs)
		slows[i].rt, fasts[i].rt = ptBackend{body, seed}, ptBackend{body, seed}
		slow, fast := slows[i].run(t), fasts[i].run(t)
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("fast path differs from the decoder's (-slow +fast):\n%s", diff)
		}
	})
}
