// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package sse_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolgate/toolgate/internal/sse"
)

func ExampleReader() {
	body := "event: content_block_delta\ndata: {\"text\":\"Hi\"}\n\n: ping\n\ndata: [DONE]\n\ndata: {\"cut"
	r := sse.NewReader(strings.NewReader(body), nil)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, sse.ErrTruncated) {
			fmt.Println("error:", err)
			break
		}
		fmt.Printf("%q %s\n", ev.Name, ev.Data)
	}
	// Output:
	// "content_block_delta" {"text":"Hi"}
	// "" [DONE]
	// error: sse: stream ended inside an event at line 8 (byte 70, event 3)
}

func ExampleWriter() {
	w := sse.NewWriter(os.Stdout)
	w.Write("message_stop", []byte(`{"type":"message_stop"}`))
	w.Write("", []byte("[DONE]"))
	// Output:
	// event: message_stop
	// data: {"type":"message_stop"}
	//
	// data: [DONE]
}
