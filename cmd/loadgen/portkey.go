// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// portkeyScript is Portkey's Node server, relative to the directory
// that -portkey names (cmd/loadgen/portkey after `npm ci`).
const portkeyScript = "node_modules/@portkey-ai/gateway/build/start-server.js"

// errNoPortkey is returned when -portkey names a directory without an
// installed gateway, or node is not on PATH.
var errNoPortkey = errors.New("portkey not installed")

// portkeyCommand returns node and the start script of the gateway
// installed in dir.
func portkeyCommand(dir string) (node, script string, err error) {
	script, err = filepath.Abs(filepath.Join(dir, portkeyScript))
	if err != nil {
		return "", "", err
	}
	if _, err := os.Stat(script); err != nil {
		return "", "", fmt.Errorf("%w: no %s in %s (run npm ci there)", errNoPortkey, portkeyScript, dir)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", fmt.Errorf("%w: node is not on PATH", errNoPortkey)
	}
	return node, script, nil
}

// rePortkey matches the line Portkey prints once it serves; the URL it
// prints says localhost, so the harness uses its own.
var rePortkey = regexp.MustCompile(`(http://localhost:\d+)`)

// loopbackJS is preloaded into Portkey (node --require) so that it
// listens on 127.0.0.1 only: its start script takes no host and would
// listen on every interface.
//
//go:embed portkey/loopback.cjs
var loopbackJS []byte

// startPortkey runs Portkey's gateway installed in dir on a free
// loopback port, as the earlier runs did (NODE_ENV=production,
// --headless), and waits until it accepts connections.
func startPortkey(ctx context.Context, dir string) (*child, error) {
	node, script, err := portkeyCommand(dir)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pre, err := os.CreateTemp("", "loadgen-loopback-*.cjs")
	if err != nil {
		return nil, err
	}
	defer os.Remove(pre.Name()) // read by node at start, before it serves
	if _, err := pre.Write(loopbackJS); err != nil {
		pre.Close()
		return nil, err
	}
	if err := pre.Close(); err != nil {
		return nil, err
	}
	// A failing request makes Portkey print a stack trace: keep the
	// first few.
	errOut := &capWriter{w: os.Stderr, n: 4 << 10, name: "portkey"}
	c, err := startLogged(ctx, rePortkey, false, errOut, []string{"NODE_ENV=production"}, node, "--require", pre.Name(), script, "--port="+strconv.Itoa(port), "--headless")
	if err != nil {
		return nil, fmt.Errorf("portkey: %w", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(30 * time.Second); ; {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			c.stop()
			return nil, fmt.Errorf("portkey: not accepting connections on %s within 30s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.url = "http://" + addr
	return c, nil
}

// portkeyHeaders are what Portkey needs to forward a Chat request to the
// fake backend as an OpenAI-compatible host.
func portkeyHeaders(backend string) [][2]string {
	return [][2]string{
		{"x-portkey-provider", "openai"},
		{"x-portkey-custom-host", backend + "/v1"},
		{"Authorization", "Bearer x"},
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// capWriter passes the first n bytes written to w and drops the rest,
// saying so once.
type capWriter struct {
	w    io.Writer
	n    int
	name string

	mu      sync.Mutex
	written int
	said    bool
}

func (c *capWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.n - c.written; room > 0 {
		k := min(room, len(p))
		c.w.Write(p[:k])
		c.written += k
		if k == len(p) {
			return len(p), nil
		}
	}
	if !c.said {
		c.said = true
		fmt.Fprintf(c.w, "\n[the rest of %s's stderr is dropped]\n", c.name)
	}
	return len(p), nil
}
