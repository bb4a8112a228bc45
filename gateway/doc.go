// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package gateway translates model turns between the OpenAI Chat
// Completions, OpenAI Responses and Anthropic Messages APIs, so that any
// front door can sit in front of any backend.
//
// # One event stream
//
// Every backend stream is decoded into one sequence of [Event] values —
// start, reasoning and its signature, text, tool calls (opened, arguments
// in pieces, closed), usage, finish, warning, error — by a
// [StreamDecoder] for its API. The decoders own the repairs clients rely
// on: tool-call indexes from 0 in call order whatever the backend sent,
// one call open at a time, arguments that always concatenate to a JSON
// object ("{}" for a call without any), a turn holding calls that
// finishes [FinishToolCalls], usage with cache tokens folded in, the
// finish held until the usage that follows it has arrived, and a stream
// cut before its end reported as [ErrIncomplete] rather than passed on
// as a shorter answer.
//
// [Collector] folds events into a whole [Turn], which is what a
// non-streaming response holds, and checks the order on the way.
//
// # Example
//
//	dec, _ := gateway.NewStreamDecoder(gateway.APIMessages)
//	col := gateway.NewCollector()
//	r := sse.NewReader(resp.Body, nil)
//	for {
//		ev, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		...
//		events, err := dec.Decode(ev.Name, ev.Data)
//		for _, e := range events {
//			col.Add(e)
//		}
//	}
//	events, err := dec.End()
package gateway
