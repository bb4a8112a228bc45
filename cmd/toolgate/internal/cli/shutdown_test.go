// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// TestServeShutdownStreams runs a real `toolgate serve` with three
// gateway streams open, one per front door, and sends SIGTERM. Streams
// that finish within server.shutdown_timeout end naturally; streams
// still open when it ends, or when a second SIGTERM cuts the wait short,
// end with their API's error event, never a cut connection. The process
// exits 0 each time.
func TestServeShutdownStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildToolgate(t)
	const sse = `{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"}}]}`
	tests := []struct {
		name     string
		grace    string
		reply    gatewaytest.Reply
		second   bool
		want     string // in every stream's tail
		maxAfter time.Duration
	}{
		{name: "natural_end", grace: "10s", want: "natural",
			reply: gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(sse), []byte(`{"id":"c1","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":"stop"}]}`)), Seed: 7}},
		{name: "grace_ends", grace: "500ms", want: "shutting down", maxAfter: 6 * time.Second,
			reply: gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(sse), []byte(sse)), StallAfter: len("data: " + sse + "\n\n")}},
		{name: "second_signal", grace: "5m", second: true, want: "shutting down", maxAfter: 6 * time.Second,
			reply: gatewaytest.Reply{Body: gatewaytest.ChatSSE([]byte(sse), []byte(sse)), StallAfter: len("data: " + sse + "\n\n")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			back := gatewaytest.NewBackend()
			var gate chan struct{}
			if tt.want == "natural" {
				// The backend holds its answers until SIGTERM has been
				// sent: the streams are open, and finish in the grace.
				gate = make(chan struct{})
			}
			back.Respond = func(gatewaytest.Request) gatewaytest.Reply {
				if gate != nil {
					<-gate
				}
				return tt.reply
			}
			bs := httptest.NewServer(back)
			defer bs.Close()
			dir := t.TempDir()
			cfg := filepath.Join(dir, "serve.yaml")
			os.WriteFile(cfg, []byte(fmt.Sprintf(`server: {shutdown_timeout: %s}
principals: [{id: agent, roles: [reader]}]
auth:
  tokens: [{principal: agent, token: agent-token}]
sources: [{name: tasks, demo: {}}]
providers:
  - name: local
    model_name: m
    provider_backend: openai_compat
    api_config: {base_url: "%s/v1"}
    timeouts: {first_token: 5m, idle: 5m}
`, tt.grace, bs.URL)), 0o600)
			cmd := exec.Command(bin, "serve", "--config", cfg, "--addr", "127.0.0.1:0")
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			sc := bufio.NewScanner(stderr)
			base := ""
			for sc.Scan() {
				if m := mcpURL.FindStringSubmatch(sc.Text()); m != nil {
					base = strings.TrimSuffix(m[1], "/mcp")
					break
				}
			}
			if base == "" {
				t.Fatal("serve did not start")
			}
			var logMu sync.Mutex
			var logs strings.Builder
			go func() {
				for sc.Scan() {
					logMu.Lock()
					logs.WriteString(sc.Text() + "\n")
					logMu.Unlock()
				}
			}()
			bodies := map[string]string{
				"/v1/chat/completions": `{"model":"local","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
				"/v1/messages":         `{"model":"local","stream":true,"max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`,
				"/v1/responses":        `{"model":"local","stream":true,"input":"hi"}`,
			}
			got := map[string]string{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			started := make(chan struct{}, len(bodies))
			for path, body := range bodies {
				wg.Go(func() {
					req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer agent-token")
					req.Header.Set("Content-Type", "application/json")
					resp, err := http.DefaultClient.Do(req)
					started <- struct{}{}
					if err != nil {
						mu.Lock()
						got[path] = "error: " + err.Error()
						mu.Unlock()
						return
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					mu.Lock()
					got[path] = fmt.Sprintf("%d %s", resp.StatusCode, b)
					if err != nil {
						got[path] += " read error: " + err.Error()
					}
					mu.Unlock()
				})
			}
			if gate == nil {
				for range bodies { // the headers are in: every stream is open
					<-started
				}
			} else {
				time.Sleep(300 * time.Millisecond) // every request is waiting on the backend
			}
			cmd.Process.Signal(syscall.SIGTERM)
			sent := time.Now()
			if gate != nil {
				time.Sleep(200 * time.Millisecond)
				close(gate)
			}
			if tt.second {
				time.Sleep(300 * time.Millisecond)
				cmd.Process.Signal(syscall.SIGTERM)
			}
			werr := make(chan error, 1)
			go func() { werr <- cmd.Wait() }()
			select {
			case err := <-werr:
				if err != nil {
					logMu.Lock()
					t.Errorf("serve exited with %v, want 0\n%s", err, logs.String())
					logMu.Unlock()
				}
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not exit")
			}
			if tt.maxAfter > 0 && time.Since(sent) > tt.maxAfter {
				t.Errorf("serve took %v to exit, want under %v", time.Since(sent), tt.maxAfter)
			}
			wg.Wait()
			for path, b := range got {
				tail := b[max(0, len(b)-600):]
				if !strings.HasPrefix(b, "200 ") {
					t.Errorf("%s: %s", path, tail)
					continue
				}
				switch tt.want {
				case "natural":
					ends := map[string]string{"/v1/chat/completions": "data: [DONE]", "/v1/messages": "message_stop", "/v1/responses": "response.completed"}
					if !strings.Contains(b, ends[path]) || strings.Contains(b, "error") {
						t.Errorf("%s did not end naturally: %s", path, tail)
					}
				default:
					// The error event (Responses follows it with
					// response.failed, its terminal event).
					ends := map[string]string{"/v1/chat/completions": `"error"`, "/v1/messages": "event: error", "/v1/responses": "response.failed"}
					if !strings.Contains(b, tt.want) || !strings.Contains(tail, ends[path]) {
						t.Errorf("%s did not end with an error event saying %q: %s", path, tt.want, tail)
					}
				}
			}
		})
	}
}
