// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
)

// maskKeys are the configured provider keys of TestMaskHostileBackend,
// one per backend API, with the characters that make their encoded forms
// differ from the key itself.
var maskKeys = []string{
	"sk-proj/Ab+c9=Zq&k%xy_LEAK~0001",
	"sk-ant-api03 LEAK:0002?#x=y",
	"LEAKplainkey0003XYZabc",
}

// leakForms lists what a backend might echo of key, computed here
// independently of the gateway's masker: the key, its base64 forms, the
// key inside a Basic credential, and its percent-encodings.
func leakForms(key string) []string {
	var all strings.Builder
	for i := 0; i < len(key); i++ {
		fmt.Fprintf(&all, "%%%02X", key[i])
	}
	forms := []string{
		key,
		base64.StdEncoding.EncodeToString([]byte(key)),
		base64.RawStdEncoding.EncodeToString([]byte(key)),
		base64.URLEncoding.EncodeToString([]byte(key)),
		base64.RawURLEncoding.EncodeToString([]byte(key)),
		base64.StdEncoding.EncodeToString([]byte("user:" + key)),
		url.QueryEscape(key),
		url.PathEscape(key),
		all.String(),
		strings.ToLower(all.String()),
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range forms {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// hostileReply is a backend answer that carries plant in every string
// member of the API's error shape and in its headers: as an error status
// (stream false) or as an error event after one chunk of text.
func hostileReply(api gateway.API, plant string, midStream bool) gatewaytest.Reply {
	q, _ := json.Marshal(plant)
	p := string(q)
	h := http.Header{}
	for _, k := range []string{"X-Leak", "Openai-Organization", "Request-Id", "Anthropic-Organization-Id", "X-Request-Id"} {
		h.Set(k, plant)
	}
	h.Set("Www-Authenticate", "Bearer "+plant)
	h.Set("Set-Cookie", "session="+url.QueryEscape(plant))
	errObj := `{"message":"the key ` + strings.Trim(p, `"`) + ` is not valid","type":` + p + `,"param":` + p + `,"code":` + p +
		`,"details":{"key":` + p + `,"list":[` + p + `,{"deep":` + p + `}]}}`
	if !midStream {
		body := `{"error":` + errObj + `,"request_id":` + p + `}`
		if api == gateway.APIMessages {
			body = `{"type":"error","error":` + errObj + `,"request_id":` + p + `}`
		}
		return gatewaytest.Reply{Status: http.StatusBadRequest, Header: h, Body: []byte(body)}
	}
	var sse string
	switch api {
	case gateway.APIChat:
		sse = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}` + "\n\n" +
			`data: {"error":` + errObj + `}` + "\n\n"
	case gateway.APIMessages:
		sse = "event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}` + "\n\n" +
			"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}` + "\n\n" +
			"event: error\n" + `data: {"type":"error","error":` + errObj + `,"request_id":` + p + `}` + "\n\n"
	case gateway.APIResponses:
		sse = "event: response.created\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[]}}` + "\n\n" +
			"event: response.output_item.added\n" + `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}}` + "\n\n" +
			"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}` + "\n\n" +
			"event: error\n" + `data: {"type":"error","sequence_number":3,"code":` + p + `,"message":"the key ` + strings.Trim(p, `"`) + ` is not valid","param":` + p + `}` + "\n\n" +
			"event: response.failed\n" + `data: {"type":"response.failed","sequence_number":4,"response":{"id":"resp_1","object":"response","status":"failed","model":"m","output":[],"error":` + errObj + `}}` + "\n\n"
	}
	return gatewaytest.Reply{Header: h, Body: []byte(sse)}
}

// maskFronts are the gateway's front doors with the request each sends.
var maskFronts = []struct {
	name, path string
	api        gateway.API
	stream     bool
}{
	{"chat", "/v1/chat/completions", gateway.APIChat, false},
	{"chat-stream", "/v1/chat/completions", gateway.APIChat, true},
	{"responses", "/v1/responses", gateway.APIResponses, false},
	{"responses-stream", "/v1/responses", gateway.APIResponses, true},
	{"messages", "/v1/messages", gateway.APIMessages, false},
	{"messages-stream", "/v1/messages", gateway.APIMessages, true},
	{"generate", "/generate", "", false},
}

// received is every byte of resp a client gets: status, headers, body
// and trailers.
func received(t *testing.T, resp *http.Response) (string, string) {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(resp.Status + "\n")
	for _, hs := range []http.Header{resp.Header, resp.Trailer} {
		keys := make([]string, 0, len(hs))
		for k := range hs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range hs[k] {
				b.WriteString(k + ": " + v + "\n")
			}
		}
	}
	b.Write(body)
	return b.String(), string(body)
}

// TestMaskHostileBackend plants each configured key, and its encoded
// forms, in every member of every backend API's error shape (as an
// error status, and as an error event after one chunk) and in the
// response headers, and asks through every front door, streamed and
// not: no byte the client receives may hold any form of any key.
// (The issue: a backend that sent one chunk and then an error whose type
// and code were the key got it to the client verbatim.)
func TestMaskHostileBackend(t *testing.T) {
	rg := newRig(t, func(c *gateway.Config) {
		for i := range c.Providers {
			c.Providers[i].APIKey = maskKeys[i]
			c.Providers[i].Retries = -1
		}
	})
	var forms []string
	for _, k := range maskKeys {
		forms = append(forms, leakForms(k)...)
	}
	requests := 0
	for _, api := range []gateway.API{gateway.APIChat, gateway.APIMessages, gateway.APIResponses} {
		model := "m-" + string(api)
		for _, midStream := range []bool{false, true} {
			mode := "status"
			if midStream {
				mode = "mid-stream"
			}
			for fi, plant := range forms {
				for _, f := range maskFronts {
					name := fmt.Sprintf("%s/%s/form%d/%s", api, mode, fi, f.name)
					rg.backends[api].Push(hostileReply(api, plant, midStream))
					var body string
					if f.api == "" {
						body = fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"Weather in Paris?"}]}`, model)
					} else {
						body = clientBody(f.api, model, f.stream)
					}
					req, _ := http.NewRequest(http.MethodPost, rg.gw.URL+f.path, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer client-token")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					all, got := received(t, resp)
					requests++
					for _, leak := range forms {
						if strings.Contains(all, leak) {
							t.Errorf("%s: the client received %q:\n%s", name, leak, all)
						}
					}
					// The planted message did reach the client, masked:
					// the error path under test really ran.
					if !strings.Contains(got, "[redacted]") {
						t.Errorf("%s: the backend's error did not reach the client masked:\n%s", name, all)
					}
					if t.Failed() {
						t.FailNow()
					}
				}
			}
		}
	}
	t.Logf("%d requests, %d planted forms", requests, len(forms))
}
