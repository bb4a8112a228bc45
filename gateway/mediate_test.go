// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/source"
)

// mediated is a rig whose gateway mediates tool calls through a kernel
// serving listTasks, with a policy denying recursive deletes in Bash.
type mediated struct {
	*rig
	mu    sync.Mutex
	seen  []kernel.Observation // the kernel's observations of calls
	store *kernel.MemoryAuditStore
	log   *kernel.AuditLog
	ran   *int // listTasks calls
}

func newMediated(t *testing.T, steps int, mods ...func(*gateway.Config)) *mediated {
	t.Helper()
	pol, err := kernel.NewPolicy(&kernel.PolicyConfig{Rules: []kernel.Rule{
		{Name: "no-rm", Tools: []string{"Bash"}, When: `args.command.matches("rm\\s+-rf")`, Effect: kernel.EffectDeny, Reason: "no recursive deletes"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := &mediated{store: kernel.NewMemoryAuditStore(), ran: new(int)}
	if m.log, err = kernel.NewAuditLog(context.Background(), &kernel.AuditConfig{Store: m.store}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.log.Close(context.Background()) })
	k, err := kernel.New(&kernel.Config{Policy: pol, Audit: m.log, Principals: []kernel.Principal{{ID: "agent", Roles: []string{"reader", "writer"}}},
		Observe: func(_ context.Context, o kernel.Observation) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.seen = append(m.seen, o)
		}})
	if err != nil {
		t.Fatal(err)
	}
	type listIn struct{}
	type task struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
	}
	c, err := kernel.Func("listTasks", "List the tasks", func(ctx context.Context, _ listIn) ([]task, error) {
		*m.ran++
		return []task{{1, "Write the release notes"}, {2, "Rotate the keys"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Safety = kernel.SafetyRead
	if err := k.Registry().Add(c); err != nil {
		t.Fatal(err)
	}
	m.rig = newRig(t, func(cfg *gateway.Config) {
		cfg.Audit = m.log
		cfg.Mediate = &gateway.Mediation{Kernel: k, MaxToolSteps: steps,
			ClientTools: []gateway.ClientTool{{Name: "Read*", Safety: kernel.SafetyRead}, {Name: "Bash", Safety: kernel.SafetyWrite}},
			Served:      []gateway.ServedTool{{Definition: c.Definition, Source: "tasks"}}}
		for _, mod := range mods {
			mod(cfg)
		}
	})
	return m
}

// records returns the audit log's records once written.
func (m *mediated) records(t *testing.T) []kernel.AuditRecord {
	t.Helper()
	if err := m.log.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := m.store.Records()
	rep, err := kernel.VerifyChain(context.Background(), m.store, nil)
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", err, rep)
	}
	return recs
}

func chatCallReply(id, name, args string) gatewaytest.Reply {
	return gatewaytest.Reply{Body: gatewaytest.ChatSSE(
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me look. "},"finish_reason":null}]}`),
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"`+id+`","type":"function","function":{"name":"`+name+`","arguments":`+strconv.Quote(args)+`}}]},"finish_reason":null}]}`),
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
		[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`),
	)}
}

func chatTextReply(text string) gatewaytest.Reply {
	return gatewaytest.Reply{Body: gatewaytest.ChatSSE(
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{"role":"assistant","content":`+strconv.Quote(text)+`},"finish_reason":null}]}`),
		[]byte(`{"id":"c","model":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		[]byte(`{"id":"c","model":"x","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":7,"total_tokens":37}}`),
	)}
}

// agentRequest is a request with the client's own tools, Bash and Read,
// through front door api.
func agentRequest(api gateway.API, stream bool) string {
	s := strconv.FormatBool(stream)
	switch api {
	case gateway.APIMessages:
		return `{"model":"m-openai-chat","max_tokens":256,"stream":` + s + `,"messages":[{"role":"user","content":"tidy up"}],"tools":[` +
			`{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}},` +
			`{"name":"Read","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}]}`
	case gateway.APIResponses:
		return `{"model":"m-openai-chat","stream":` + s + `,"input":"tidy up","tools":[` +
			`{"type":"function","name":"Bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}},` +
			`{"type":"function","name":"Read","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]}`
	}
	return `{"model":"m-openai-chat","stream":` + s + `,"messages":[{"role":"user","content":"tidy up"}],"tools":[` +
		`{"type":"function","function":{"name":"Bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}},` +
		`{"type":"function","function":{"name":"Read","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]}`
}

func (m *mediated) post(t *testing.T, api gateway.API, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", m.gw.URL+routes[api], strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer client-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestMediateDeniedClientCall(t *testing.T) {
	for _, api := range []gateway.API{gateway.APIMessages, gateway.APIResponses, gateway.APIChat} {
		for _, stream := range []bool{false, true} {
			t.Run(string(api)+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
				m := newMediated(t, 0)
				b := m.backends[gateway.APIChat]
				b.Push(chatCallReply("call_rm", "Bash", `{"command":"rm -rf /home"}`), chatTextReply("Understood: I will not delete anything."))
				resp, body := m.post(t, api, agentRequest(api, stream))
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				if strings.Contains(body, "call_rm") || strings.Contains(body, "rm -rf") {
					t.Errorf("the client saw the denied call:\n%s", body)
				}
				if !strings.Contains(body, "Understood: I will not delete anything.") || !strings.Contains(body, "Let me look.") {
					t.Errorf("the answer is missing:\n%s", body)
				}
				warn := resp.Header.Get("X-Toolgate-Warnings") + resp.Trailer.Get("X-Toolgate-Warnings")
				if !strings.Contains(warn, "mediation-denied") {
					t.Errorf("no warning of the denial: %q", warn)
				}
				reqs := b.Requests()
				if len(reqs) != 2 {
					t.Fatalf("%d backend requests, want 2", len(reqs))
				}
				var second struct {
					Messages []struct {
						Role       string          `json:"role"`
						Content    json.RawMessage `json:"content"`
						ToolCallID string          `json:"tool_call_id"`
						ToolCalls  []struct {
							ID string `json:"id"`
						} `json:"tool_calls"`
					} `json:"messages"`
				}
				if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
					t.Fatal(err)
				}
				n := len(second.Messages)
				if n < 3 || second.Messages[n-2].Role != "assistant" || len(second.Messages[n-2].ToolCalls) != 1 || second.Messages[n-2].ToolCalls[0].ID != "call_rm" ||
					second.Messages[n-1].Role != "tool" || second.Messages[n-1].ToolCallID != "call_rm" ||
					!strings.Contains(string(second.Messages[n-1].Content), "no recursive deletes") {
					t.Errorf("the model was not told of the denial:\n%s", reqs[1].Body)
				}
				recs := m.records(t)
				if len(recs) != 2 {
					t.Fatalf("%d records, want a proposal and the request: %+v", len(recs), recs)
				}
				p, r := recs[0], recs[1]
				if p.Kind != kernel.RecordProposal || p.Tool != "Bash" || p.Status != kernel.StatusDenied || p.Rule != "no-rm" || p.Principal != "agent" {
					t.Errorf("proposal record %+v", p)
				}
				if r.Kind != kernel.RecordModel || r.Tool != "m-openai-chat" || p.Parent != r.CallID || !strings.HasPrefix(r.CallID, "req_") {
					t.Errorf("request record %+v, proposal's parent %q", r, p.Parent)
				}
				if !strings.Contains(r.Result, `"input_tokens":40`) || !strings.Contains(r.Result, `"output_tokens":12`) {
					t.Errorf("the request's usage is not both passes': %s", r.Result)
				}
				// The console's feed puts the call under its request.
				m.mu.Lock()
				if len(m.seen) != 1 || !m.seen[0].Proposed || m.seen[0].Parent != r.CallID || m.seen[0].Tool != "Bash" {
					t.Errorf("observations %+v", m.seen)
				}
				m.mu.Unlock()
			})
		}
	}
}

func TestMediateAllowedClientCall(t *testing.T) {
	for _, api := range []gateway.API{gateway.APIMessages, gateway.APIResponses, gateway.APIChat} {
		for _, stream := range []bool{false, true} {
			t.Run(string(api)+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
				m := newMediated(t, 0)
				b := m.backends[gateway.APIChat]
				b.Push(chatCallReply("call_read", "Read", `{"path":"notes.txt"}`))
				resp, body := m.post(t, api, agentRequest(api, stream))
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				if !strings.Contains(body, "call_read") || !strings.Contains(body, "notes.txt") {
					t.Errorf("the client did not get the allowed call:\n%s", body)
				}
				want := map[gateway.API]string{gateway.APIMessages: `"tool_use"`, gateway.APIResponses: `"function_call"`, gateway.APIChat: `"tool_calls"`}[api]
				if !strings.Contains(body, want) {
					t.Errorf("no %s in:\n%s", want, body)
				}
				if n := len(b.Requests()); n != 1 {
					t.Errorf("%d backend requests, want 1", n)
				}
				recs := m.records(t)
				if len(recs) != 2 || recs[0].Kind != kernel.RecordProposal || recs[0].Status != kernel.StatusOK || recs[0].Parent != recs[1].CallID {
					t.Errorf("records %+v", recs)
				}
			})
		}
	}
}

func TestMediateServedTool(t *testing.T) {
	for _, api := range []gateway.API{gateway.APIMessages, gateway.APIResponses, gateway.APIChat} {
		for _, stream := range []bool{false, true} {
			t.Run(string(api)+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
				m := newMediated(t, 0)
				b := m.backends[gateway.APIChat]
				b.Push(chatCallReply("call_list", "listTasks", `{}`), chatTextReply("There are two tasks."))
				resp, body := m.post(t, api, agentRequest(api, stream))
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				if *m.ran != 1 {
					t.Errorf("listTasks ran %d times, want 1", *m.ran)
				}
				if !strings.Contains(body, "There are two tasks.") {
					t.Errorf("no answer:\n%s", body)
				}
				switch api {
				case gateway.APIMessages:
					for _, want := range []string{`"type":"mcp_tool_use","id":"call_list","name":"listTasks","server_name":"tasks"`, `"type":"mcp_tool_result","tool_use_id":"call_list","is_error":false`, `Rotate the keys`} {
						if !strings.Contains(body, want) {
							t.Errorf("no %s in:\n%s", want, body)
						}
					}
					if strings.Contains(body, `"tool_use"`) {
						t.Errorf("the served call reached the client as a call to run:\n%s", body)
					}
				case gateway.APIResponses:
					for _, want := range []string{`"type":"mcp_call","status":"completed","server_label":"tasks","name":"listTasks"`, `Rotate the keys`} {
						if !strings.Contains(body, want) {
							t.Errorf("no %s in:\n%s", want, body)
						}
					}
				case gateway.APIChat:
					// The passes' texts are set apart.
					if !stream && !strings.Contains(body, `"content":"Let me look. \n\nThere are two tasks."`) {
						t.Errorf("the texts of the two passes are not one paragraph apart:\n%s", body)
					}
					warn := resp.Header.Get("X-Toolgate-Warnings") + resp.Trailer.Get("X-Toolgate-Warnings")
					if !strings.Contains(warn, "mediation-server-tool") {
						t.Errorf("no warning naming the served call: %q", warn)
					}
					if strings.Contains(body, "call_list") {
						t.Errorf("the served call reached the client as a call to run:\n%s", body)
					}
				}
				reqs := b.Requests()
				if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "Rotate the keys") {
					t.Fatalf("the model did not get the result (%d requests)", len(reqs))
				}
				if !strings.Contains(string(reqs[0].Body), `"name":"listTasks"`) {
					t.Errorf("listTasks was not offered to the model:\n%s", reqs[0].Body)
				}
				// The call's records (with the write-ahead log, its intent
				// and its outcome), then the request's.
				recs := m.records(t)
				last := recs[len(recs)-1]
				ran := false
				for _, r := range recs[:len(recs)-1] {
					if r.Tool != "listTasks" || r.Parent != last.CallID || (r.Status != kernel.StatusOK && r.Kind != kernel.RecordIntent) {
						t.Errorf("record %+v not under request %s", r, last.CallID)
					}
					ran = ran || strings.Contains(r.Result, "Rotate the keys")
				}
				if last.Kind != kernel.RecordModel || !ran {
					t.Errorf("records %+v", recs)
				}
			})
		}
	}
}

func TestMediateUnknownTool(t *testing.T) {
	m := newMediated(t, 0)
	b := m.backends[gateway.APIChat]
	b.Push(chatCallReply("call_x", "Teleport", `{"to":"mars"}`), chatTextReply("I cannot teleport."))
	resp, body := m.post(t, gateway.APIMessages, agentRequest(gateway.APIMessages, false))
	if resp.StatusCode != 200 || strings.Contains(body, "Teleport") || !strings.Contains(body, "I cannot teleport.") {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	reqs := b.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "unknown tool") {
		t.Fatalf("the model was not told the tool is unknown (%d requests)", len(reqs))
	}
	recs := m.records(t)
	if len(recs) != 2 || recs[0].Status != kernel.StatusUnknownTool || recs[0].Kind != kernel.RecordProposal {
		t.Errorf("records %+v", recs)
	}
}

func TestMediateMaxToolSteps(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			m := newMediated(t, 3)
			b := m.backends[gateway.APIChat]
			b.Push(chatCallReply("call_rm", "Bash", `{"command":"rm -rf /"}`)) // repeated for every request
			resp, body := m.post(t, gateway.APIMessages, agentRequest(gateway.APIMessages, stream))
			if !strings.Contains(body, "max_tool_steps") {
				t.Errorf("status %d, no message naming max_tool_steps:\n%s", resp.StatusCode, body)
			}
			if !stream && resp.StatusCode != http.StatusBadGateway {
				t.Errorf("status %d, want 502", resp.StatusCode)
			}
			if n := len(b.Requests()); n != 3 {
				t.Errorf("%d backend requests, want 3", n)
			}
			if recs := m.records(t); len(recs) != 4 {
				t.Errorf("%d records, want 3 proposals and the request", len(recs))
			}
		})
	}
}

// TestMediateReplay checks that a client replaying the server-tool blocks
// it was given, as the SDKs do with a message's content, is understood:
// the call and its result reach the backend in order.
func TestMediateReplay(t *testing.T) {
	m := newMediated(t, 0)
	b := m.backends[gateway.APIChat]
	b.Push(chatCallReply("call_list", "listTasks", `{}`), chatTextReply("There are two tasks."), chatTextReply("You are welcome."))
	_, first := m.post(t, gateway.APIMessages, agentRequest(gateway.APIMessages, false))
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal([]byte(first), &msg); err != nil {
		t.Fatal(err)
	}
	next := `{"model":"m-openai-chat","max_tokens":256,"messages":[{"role":"user","content":"tidy up"},{"role":"assistant","content":` + string(msg.Content) + `},{"role":"user","content":"thanks"}]}`
	resp, body := m.post(t, gateway.APIMessages, next)
	if resp.StatusCode != 200 || !strings.Contains(body, "You are welcome.") {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	reqs := b.Requests()
	var got struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &got); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range got.Messages {
		roles = append(roles, m.Role)
	}
	if want := "user assistant tool assistant user"; strings.Join(roles, " ") != want {
		t.Errorf("roles %v, want %s:\n%s", roles, want, reqs[len(reqs)-1].Body)
	}
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "Rotate the keys") {
		t.Errorf("the replayed result is missing:\n%s", reqs[len(reqs)-1].Body)
	}

	// The same through Responses: its mcp_call item.
	b.Push(chatCallReply("call_list2", "listTasks", `{}`), chatTextReply("Two tasks."), chatTextReply("Bye."))
	_, first = m.post(t, gateway.APIResponses, agentRequest(gateway.APIResponses, false))
	var rs struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal([]byte(first), &rs); err != nil {
		t.Fatal(err)
	}
	items := `{"role":"user","content":"tidy up"}`
	for _, o := range rs.Output {
		items += "," + string(o)
	}
	resp, body = m.post(t, gateway.APIResponses, `{"model":"m-openai-chat","input":[`+items+`,{"role":"user","content":"bye"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "Bye.") {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	reqs = b.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, `"tool_call_id":"call_list2"`) || !strings.Contains(last, "Rotate the keys") {
		t.Errorf("the replayed mcp_call did not reach the backend as a call and its result:\n%s", last)
	}
}

// TestMediateTextModel checks that the calls a text model prints (Hermes
// <tool_call> blocks, read by the gateway) are decided the same way.
func TestMediateTextModel(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			m := newMediated(t, 0, func(c *gateway.Config) {
				for i := range c.Providers {
					if c.Providers[i].API == gateway.APIChat {
						c.Providers[i].ToolParser = "hermes"
					}
				}
			})
			b := m.backends[gateway.APIChat]
			rng := rand.New(rand.NewPCG(1, 2))
			b.Push(gatewaytest.Reply{Body: textChatSSE("Let me look. <tool_call>\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"rm -rf /srv\"}}\n</tool_call>", rng)},
				gatewaytest.Reply{Body: textChatSSE("I will leave /srv alone.", nil)})
			resp, body := m.post(t, gateway.APIMessages, agentRequest(gateway.APIMessages, stream))
			if resp.StatusCode != 200 || strings.Contains(body, "rm -rf") || strings.Contains(body, "tool_use") || !strings.Contains(body, "I will leave /srv alone.") {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			reqs := b.Requests()
			if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "no recursive deletes") {
				t.Fatalf("the text model was not told of the denial (%d requests)", len(reqs))
			}
			recs := m.records(t)
			if len(recs) != 2 || recs[0].Tool != "Bash" || recs[0].Status != kernel.StatusDenied {
				t.Errorf("records %+v", recs)
			}
		})
	}
}

// TestMediateMCPServers checks the MCP connector shapes: an Anthropic
// mcp_servers entry and a Responses mcp tool naming an allowed server are
// connected, their tools offered and run through the kernel; another URL
// is refused, naming it.
func TestMediateMCPServers(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	type lookupIn struct {
		Topic string `json:"topic"`
	}
	var lookups int
	mcp.AddTool(up, &mcp.Tool{Name: "lookup", Description: "Look a topic up"}, func(ctx context.Context, req *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
		lookups++
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs about " + in.Topic}}}, nil, nil
	})
	var auth []string
	upH := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil)
	var authMu sync.Mutex
	upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authMu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		authMu.Unlock()
		upH.ServeHTTP(w, r)
	}))
	defer upSrv.Close()
	var m *mediated
	m = newMediated(t, 0, func(c *gateway.Config) {
		c.Mediate.MCPServersAllowed = []string{upSrv.URL + "/"}
		c.Mediate.Connect = func(ctx context.Context, url, label string, header http.Header) (*kernel.Kernel, func() error, error) {
			u, err := source.ConnectMCP(ctx, &source.MCPConfig{Prefix: label, URL: url, Header: header})
			if err != nil {
				return nil, nil, err
			}
			k, err := kernel.New(&kernel.Config{Audit: m.log, Principals: []kernel.Principal{{ID: "agent", Roles: []string{"reader", "writer"}}}})
			if err != nil {
				return nil, nil, err
			}
			for _, cp := range u.Capabilities() {
				cp.Safety = kernel.SafetyRead
				if err := k.Registry().Add(cp); err != nil {
					return nil, nil, err
				}
			}
			return k, u.Close, nil
		}
	})
	b := m.backends[gateway.APIChat]
	b.Push(chatCallReply("call_docs", "docs_lookup", `{"topic":"grants"}`), chatTextReply("Found it."),
		chatCallReply("call_docs2", "docs_lookup", `{"topic":"audit"}`), chatTextReply("Found that too."))

	msgs := `{"model":"m-openai-chat","max_tokens":99,"messages":[{"role":"user","content":"look"}],` +
		`"mcp_servers":[{"type":"url","url":"` + upSrv.URL + `/mcp","name":"docs","authorization_token":"up-token"}]}`
	resp, body := m.post(t, gateway.APIMessages, msgs)
	if resp.StatusCode != 200 || !strings.Contains(body, `"type":"mcp_tool_use","id":"call_docs","name":"docs_lookup","server_name":"docs"`) ||
		!strings.Contains(body, "docs about grants") || !strings.Contains(body, "Found it.") {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if !strings.Contains(string(b.Requests()[0].Body), `"name":"docs_lookup"`) || strings.Contains(string(b.Requests()[0].Body), "mcp_servers") {
		t.Errorf("the backend was not offered the server's tools (or got mcp_servers):\n%s", b.Requests()[0].Body)
	}
	authMu.Lock()
	if len(auth) == 0 || auth[0] != "Bearer up-token" {
		t.Errorf("the upstream got authorization %q", auth)
	}
	authMu.Unlock()

	resps := `{"model":"m-openai-chat","input":"look","tools":[{"type":"mcp","server_label":"docs","server_url":"` + upSrv.URL + `/mcp","allowed_tools":["lookup"],"require_approval":"never"}]}`
	resp, body = m.post(t, gateway.APIResponses, resps)
	if resp.StatusCode != 200 || !strings.Contains(body, `"type":"mcp_call","status":"completed","server_label":"docs","name":"docs_lookup"`) || !strings.Contains(body, "docs about audit") {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if lookups != 2 {
		t.Errorf("the upstream tool ran %d times, want 2", lookups)
	}

	for api, req := range map[gateway.API]string{
		gateway.APIMessages:  `{"model":"m-openai-chat","max_tokens":9,"messages":[{"role":"user","content":"x"}],"mcp_servers":[{"type":"url","url":"https://evil.example.com/mcp","name":"evil"}]}`,
		gateway.APIResponses: `{"model":"m-openai-chat","input":"x","tools":[{"type":"mcp","server_label":"evil","server_url":"https://evil.example.com/mcp"}]}`,
	} {
		resp, body := m.post(t, api, req)
		if resp.StatusCode != 400 || !strings.Contains(body, "https://evil.example.com/mcp") || !strings.Contains(body, "mcp_servers_allowed") {
			t.Errorf("%s: status %d: %s", api, resp.StatusCode, body)
		}
	}
	recs := m.records(t)
	var calls int
	for _, r := range recs {
		if r.Tool == "docs_lookup" && r.Parent == "" {
			t.Errorf("record %+v is under no request", r)
		}
		if r.Tool == "docs_lookup" {
			calls++
		}
	}
	if calls == 0 {
		t.Errorf("no audit record of the upstream calls: %+v", recs)
	}
}

// TestMediateSpans checks that the decisions and runs of a model's calls
// are spans under the request's: a review_tool span for a client's tool,
// an execute_tool span for a served one.
func TestMediateSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	pol, err := kernel.NewPolicy(&kernel.PolicyConfig{Rules: []kernel.Rule{
		{Name: "no-rm", Tools: []string{"Bash"}, When: `args.command.matches("rm\\s+-rf")`, Effect: kernel.EffectDeny, Reason: "no"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{Policy: pol, TracerProvider: tp, Principals: []kernel.Principal{{ID: "agent", Roles: []string{"reader", "writer"}}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := kernel.Func("listTasks", "List the tasks", func(context.Context, struct{}) ([]string, error) { return []string{"a"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	c.Safety = kernel.SafetyRead
	if err := k.Registry().Add(c); err != nil {
		t.Fatal(err)
	}
	rg := newRig(t, func(cfg *gateway.Config) {
		cfg.TracerProvider = tp
		cfg.Mediate = &gateway.Mediation{Kernel: k, Served: []gateway.ServedTool{{Definition: c.Definition, Source: "tasks"}}}
	})
	b := rg.backends[gateway.APIChat]
	b.Push(chatCallReply("call_rm", "Bash", `{"command":"rm -rf /"}`), chatCallReply("call_list", "listTasks", `{}`), chatTextReply("Done."))
	m := &mediated{rig: rg}
	if resp, body := m.post(t, gateway.APIMessages, agentRequest(gateway.APIMessages, false)); resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	rg.gw.Close()
	var server sdktrace.ReadOnlySpan
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		if s.SpanKind() == trace.SpanKindServer {
			server = s
		}
		byName[s.Name()] = s
	}
	if server == nil {
		t.Fatal("no request span")
	}
	for _, name := range []string{"review_tool Bash", "execute_tool listTasks"} {
		s, ok := byName[name]
		if !ok {
			t.Errorf("no span %q among %v", name, byName)
			continue
		}
		if s.Parent().SpanID() != server.SpanContext().SpanID() || s.SpanContext().TraceID() != server.SpanContext().TraceID() {
			t.Errorf("%s is not a child of the request's span", name)
		}
	}
}
