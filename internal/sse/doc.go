// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package sse reads and writes Server-Sent Events, the framing every
// streaming model API uses (OpenAI Chat Completions and Responses,
// Anthropic Messages, and the OpenAI-compatible servers).
//
// # Reading untrusted streams
//
// A backend's stream is untrusted input. [Reader] bounds the memory one
// stream can take ([Config.MaxEventBytes]), reports a stream cut inside an
// event as [ErrTruncated] instead of dropping the partial event, and names
// the place of every problem ([Error]: byte offset, line and event number)
// without echoing the stream's content.
//
// # Example
//
//	r := sse.NewReader(resp.Body, nil)
//	for {
//		ev, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err // *sse.Error
//		}
//		handle(ev.Name, ev.Data)
//	}
package sse
