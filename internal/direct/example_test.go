// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package direct_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/toolgate/toolgate/internal/direct"
)

func Example() {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","path":%q}`, r.URL.Path)
	}))
	defer backend.Close()

	t := direct.New(&direct.Config{Fallback: http.DefaultTransport})
	defer t.CloseIdleConnections()
	client := &http.Client{Transport: t}
	for range 2 { // the second request goes on the first one's connection
		resp, err := client.Get(backend.URL + "/v1/models")
		if err != nil {
			log.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(resp.Status, string(body))
	}
	// Output:
	// 200 OK {"object":"list","path":"/v1/models"}
	// 200 OK {"object":"list","path":"/v1/models"}
}
