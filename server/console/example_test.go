// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/server/console"
)

// Example serves the console for a kernel, logs in with an admin's token
// and reads the tools.
func Example() {
	feed := console.NewFeed(0, 0)
	k, _ := kernel.New(&kernel.Config{Observe: server.KernelObserver(feed)})
	auth, _ := server.NewAuth(&server.AuthConfig{Tokens: map[string]kernel.Principal{"secret": {ID: "ops", Roles: []string{"admin"}}}})
	c, _ := console.New(&console.Config{Kernel: k, Feed: feed, Auth: auth})
	edge, _ := server.New(&server.Config{Auth: auth, Routes: c.Routes()})
	srv := httptest.NewServer(edge.Handler())
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, _ := noRedirect.PostForm(srv.URL+"/ui/login", url.Values{"token": {"secret"}})
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Location"))
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/ui/api/tools", nil)
	req.AddCookie(resp.Cookies()[0])
	tools, _ := http.DefaultClient.Do(req)
	tools.Body.Close()
	fmt.Println(tools.StatusCode)
	// Output:
	// 303 /ui/
	// 200
}
