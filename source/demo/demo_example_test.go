// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package demo_test

import (
	"fmt"
	"io"
	"net/http"

	"github.com/toolgate/toolgate/source/demo"
)

// Example reads a task from the tracker over its in-process transport,
// as the openapi executor of source.NewDemo does.
func Example() {
	hc := &http.Client{Transport: demo.New().Transport()}
	resp, err := hc.Get("http://demo/v1/tasks/2")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(resp.StatusCode, " ", string(body))
	// Output:
	// 200 {"id":2,"title":"Rotate the staging API keys","status":"todo"}
}
