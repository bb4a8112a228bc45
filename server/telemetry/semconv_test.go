// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package telemetry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/kernel"
)

// The pinned registry: the OpenTelemetry semantic conventions v1.41.0,
// as go.opentelemetry.io/otel/semconv/v1.41.0 generates them from the
// conventions' registry (the newest version of that package with the
// GenAI and MCP groups: v1.42.0 and later moved them out). Every name
// and value below is one of its constants, so a misspelt or renamed
// attribute fails here rather than in somebody's dashboard.

// attrType is the type the registry gives an attribute.
type attrType int

const (
	typeString attrType = iota
	typeInt
	typeStrings
	typeBool
	typeAny // "any": a string of JSON on a span
)

// regEntry is an attribute of the registry: its type and, for an enum
// whose values toolgate takes from the registry, the values it lists.
type regEntry struct {
	typ    attrType
	values []attribute.KeyValue
}

// registry holds every gen_ai.*, mcp.* and jsonrpc.* attribute of the
// pinned version, and the general ones toolgate's spans use.
var registry = map[attribute.Key]regEntry{
	semconv.GenAIAgentDescriptionKey:              {typ: typeString},
	semconv.GenAIAgentIDKey:                       {typ: typeString},
	semconv.GenAIAgentNameKey:                     {typ: typeString},
	semconv.GenAIAgentVersionKey:                  {typ: typeString},
	semconv.GenAIConversationIDKey:                {typ: typeString},
	semconv.GenAIDataSourceIDKey:                  {typ: typeString},
	semconv.GenAIEmbeddingsDimensionCountKey:      {typ: typeInt},
	semconv.GenAIEvaluationExplanationKey:         {typ: typeString},
	semconv.GenAIEvaluationNameKey:                {typ: typeString},
	semconv.GenAIEvaluationScoreLabelKey:          {typ: typeString},
	semconv.GenAIInputMessagesKey:                 {typ: typeAny},
	semconv.GenAIOutputMessagesKey:                {typ: typeAny},
	semconv.GenAIPromptNameKey:                    {typ: typeString},
	semconv.GenAIRequestChoiceCountKey:            {typ: typeInt},
	semconv.GenAIRequestEncodingFormatsKey:        {typ: typeStrings},
	semconv.GenAIRequestMaxTokensKey:              {typ: typeInt},
	semconv.GenAIRequestModelKey:                  {typ: typeString},
	semconv.GenAIRequestSeedKey:                   {typ: typeInt},
	semconv.GenAIRequestStopSequencesKey:          {typ: typeStrings},
	semconv.GenAIRequestStreamKey:                 {typ: typeBool},
	semconv.GenAIRequestTopKKey:                   {typ: typeInt},
	semconv.GenAIResponseFinishReasonsKey:         {typ: typeStrings},
	semconv.GenAIResponseIDKey:                    {typ: typeString},
	semconv.GenAIResponseModelKey:                 {typ: typeString},
	semconv.GenAISystemInstructionsKey:            {typ: typeAny},
	semconv.GenAIToolCallArgumentsKey:             {typ: typeAny},
	semconv.GenAIToolCallIDKey:                    {typ: typeString},
	semconv.GenAIToolCallResultKey:                {typ: typeAny},
	semconv.GenAIToolDefinitionsKey:               {typ: typeAny},
	semconv.GenAIToolDescriptionKey:               {typ: typeString},
	semconv.GenAIToolNameKey:                      {typ: typeString},
	semconv.GenAIToolTypeKey:                      {typ: typeString},
	semconv.GenAIUsageCacheCreationInputTokensKey: {typ: typeInt},
	semconv.GenAIUsageCacheReadInputTokensKey:     {typ: typeInt},
	semconv.GenAIUsageInputTokensKey:              {typ: typeInt},
	semconv.GenAIUsageOutputTokensKey:             {typ: typeInt},
	semconv.GenAIUsageReasoningOutputTokensKey:    {typ: typeInt},
	semconv.GenAIWorkflowNameKey:                  {typ: typeString},
	semconv.GenAIOperationNameKey: {typ: typeString, values: []attribute.KeyValue{
		semconv.GenAIOperationNameChat, semconv.GenAIOperationNameGenerateContent, semconv.GenAIOperationNameTextCompletion,
		semconv.GenAIOperationNameEmbeddings, semconv.GenAIOperationNameRetrieval, semconv.GenAIOperationNameCreateAgent,
		semconv.GenAIOperationNameInvokeAgent, semconv.GenAIOperationNameExecuteTool, semconv.GenAIOperationNameInvokeWorkflow,
	}},
	semconv.GenAIOutputTypeKey: {typ: typeString, values: []attribute.KeyValue{
		semconv.GenAIOutputTypeText, semconv.GenAIOutputTypeJSON, semconv.GenAIOutputTypeImage, semconv.GenAIOutputTypeSpeech,
	}},
	semconv.GenAITokenTypeKey: {typ: typeString, values: []attribute.KeyValue{semconv.GenAITokenTypeInput, semconv.GenAITokenTypeOutput}},
	semconv.GenAIProviderNameKey: {typ: typeString, values: []attribute.KeyValue{
		semconv.GenAIProviderNameOpenAI, semconv.GenAIProviderNameGCPGenAI, semconv.GenAIProviderNameGCPVertexAI,
		semconv.GenAIProviderNameGCPGemini, semconv.GenAIProviderNameAnthropic, semconv.GenAIProviderNameCohere,
		semconv.GenAIProviderNameAzureAIInference, semconv.GenAIProviderNameAzureAIOpenAI, semconv.GenAIProviderNameIBMWatsonxAI,
		semconv.GenAIProviderNameAWSBedrock, semconv.GenAIProviderNamePerplexity, semconv.GenAIProviderNameXAI,
		semconv.GenAIProviderNameDeepseek, semconv.GenAIProviderNameGroq, semconv.GenAIProviderNameMistralAI,
	}},
	semconv.McpMethodNameKey: {typ: typeString, values: []attribute.KeyValue{
		semconv.McpMethodNameNotificationsCancelled, semconv.McpMethodNameInitialize, semconv.McpMethodNameNotificationsInitialized,
		semconv.McpMethodNameNotificationsProgress, semconv.McpMethodNamePing, semconv.McpMethodNameResourcesList,
		semconv.McpMethodNameResourcesTemplatesList, semconv.McpMethodNameResourcesRead, semconv.McpMethodNameNotificationsResourcesListChanged,
		semconv.McpMethodNameResourcesSubscribe, semconv.McpMethodNameResourcesUnsubscribe, semconv.McpMethodNameNotificationsResourcesUpdated,
		semconv.McpMethodNamePromptsList, semconv.McpMethodNamePromptsGet, semconv.McpMethodNameNotificationsPromptsListChanged,
		semconv.McpMethodNameToolsList, semconv.McpMethodNameToolsCall, semconv.McpMethodNameNotificationsToolsListChanged,
		semconv.McpMethodNameLoggingSetLevel, semconv.McpMethodNameNotificationsMessage, semconv.McpMethodNameSamplingCreateMessage,
		semconv.McpMethodNameCompletionComplete, semconv.McpMethodNameRootsList, semconv.McpMethodNameNotificationsRootsListChanged,
		semconv.McpMethodNameElicitationCreate,
	}},
	semconv.McpProtocolVersionKey:     {typ: typeString},
	semconv.McpResourceURIKey:         {typ: typeString},
	semconv.McpSessionIDKey:           {typ: typeString},
	semconv.JSONRPCProtocolVersionKey: {typ: typeString},
	semconv.JSONRPCRequestIDKey:       {typ: typeString},
	semconv.ErrorTypeKey:              {typ: typeString},
	semconv.ServerAddressKey:          {typ: typeString},
	semconv.ServerPortKey:             {typ: typeInt},
	semconv.HTTPResponseStatusCodeKey: {typ: typeInt},
	semconv.RPCResponseStatusCodeKey:  {typ: typeString},
	semconv.EnduserIDKey:              {typ: typeString},
}

// customProviders are the gen_ai.provider.name values toolgate sets for
// backends the registry has no value for: self-hosted servers (vLLM,
// llama.cpp, Ollama) and OpenAI-compatible servers of no known vendor.
// The attribute is an open enum: the conventions let an instrumentation
// name a provider the registry does not list, lowercase. A value of the
// registry must never appear here.
var customProviders = []string{"vllm", "llama.cpp", "ollama", "openai_compatible"}

// errorClass is the form of error.type values: an HTTP status or a
// JSON-RPC code, or a low-cardinality class in snake_case (the kernel's
// statuses, the gateway's failure classes), or the registry's _OTHER.
var errorClass = regexp.MustCompile(`^(-?[0-9]{3,5}|[a-z][a-z_]*|_OTHER)$`)

// spanScene is every span toolgate serve emits, from one run against
// in-process fakes, and the audit log of that run.
type spanScene struct {
	spans   []sdktrace.ReadOnlySpan
	records []*kernel.AuditRecord
	mcpSession,
	consoleCallID string
}

// sceneBackend answers the gateway's backend requests by model: a text
// answer ("plain-model", and vLLM's "local-model"), a 500 ("failing-model"), a model proposing
// the client's Bash (which the policy denies), then calling listTasks
// (which the gateway runs), then answering ("agent-model"), and Gemini's
// streamGenerateContent ("gem-model").
func sceneBackend(r gatewaytest.Request) gatewaytest.Reply {
	// A Gemini stream, or the whole answer the fake makes of it for a
	// client that does not stream.
	if strings.Contains(r.Path, ":streamGenerateContent") || strings.Contains(r.Path, ":generateContent") {
		return gatewaytest.Reply{Body: gatewaytest.GeminiSSE([]byte(`{"candidates":[{"content":{"parts":[{"text":"Hello."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2},"modelVersion":"gem-model-001","responseId":"g1"}`))}
	}
	var head struct{ Model string }
	json.Unmarshal(r.Body, &head)
	chunk := func(delta, finish string) []byte {
		return []byte(`{"id":"c","model":"` + head.Model + `-0613","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`)
	}
	usage := []byte(`{"id":"c","model":"` + head.Model + `-0613","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}`)
	call := func(id, name, args string) gatewaytest.Reply {
		return gatewaytest.Reply{Body: gatewaytest.ChatSSE(
			chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"`+id+`","type":"function","function":{"name":"`+name+`","arguments":`+strconv.Quote(args)+`}}]}`, "null"),
			chunk(`{}`, `"tool_calls"`), usage)}
	}
	switch {
	case head.Model == "failing-model":
		return gatewaytest.Reply{Status: 500, Body: gatewaytest.ErrorBody("server_error", "the backend broke")}
	case head.Model == "agent-model" && !strings.Contains(string(r.Body), `"call_rm"`):
		return call("call_rm", "Bash", `{"command":"rm -rf /"}`)
	case head.Model == "agent-model" && !strings.Contains(string(r.Body), `"call_list"`):
		return call("call_list", "listTasks", `{}`)
	}
	return gatewaytest.Reply{Body: gatewaytest.ChatSSE(chunk(`{"role":"assistant","content":"Done."}`, "null"), chunk(`{}`, `"stop"`), usage)}
}

// runScene serves the config below with every span recorded and drives
// each kind of span once: model requests on the Chat Completions and
// Gemini front doors (to an OpenAI-compatible server, to vLLM, to
// Gemini, one failing with a 500, one whose model's calls
// the gateway mediates: a denied Bash and a listTasks it runs), MCP
// tools/call (a served tool and one that is not), and a console try-it
// call.
func runScene(t *testing.T) *spanScene {
	t.Helper()
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	bsrv := httptest.NewServer(&gatewaytest.Backend{Respond: sceneBackend})
	defer bsrv.Close()
	yaml := fmt.Sprintf(`
server: {ui: true}
principals:
  - id: ops
    roles: [admin, reader, writer]
audit: {db: %[1]q}
telemetry: {capture_content: true}
auth:
  tokens:
    - principal: ops
      token_env: TOKEN
sources:
  - name: tasks
    demo: {}
providers:
  - {name: plain, model_name: plain-model, provider_backend: openai_compat, api_config: {base_url: %[2]q}}
  - {name: failing, model_name: failing-model, provider_backend: openai_compat, api_config: {base_url: %[2]q}}
  - {name: agent, model_name: agent-model, provider_backend: openai_compat, api_config: {base_url: %[2]q}}
  - {name: local, model_name: local-model, provider_backend: vllm_native, api_config: {base_url: %[2]q}, tool_parser: hermes}
  - {name: gem, model_name: gem-model, provider_backend: gemini, api_config: {base_url: %[3]q, api_key_env: GEMINI_KEY}}
gateway:
  mediate_tools: true
  tools: [tasks]
  client_tools:
    - {name: Bash, safety: WRITE}
policy:
  rules:
    - name: no-rm
      tools: [Bash]
      when: 'args.command.matches("rm\\s+-rf")'
      effect: deny
      reason: no recursive deletes
`, filepath.Join(t.TempDir(), "audit.db"), bsrv.URL+"/v1", bsrv.URL)
	f, err := config.Parse([]byte(yaml), "semconv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TOKEN": "ops-token-4b1d", "GEMINI_KEY": "gem-key"}
	s, err := f.BuildServing(ctx, &config.BuildOptions{Getenv: func(k string) string { return env[k] }, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	hs := httptest.NewServer(s.Server.Handler())
	defer hs.Close()
	auth := traceparentRT{tp: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", token: "ops-token-4b1d"}
	hc := &http.Client{Transport: auth}

	post := func(path, body string, want int) {
		t.Helper()
		resp, err := hc.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s: %d, want %d: %s", path, resp.StatusCode, want, b)
		}
	}
	chat := func(model, tools string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":"Tidy up."}]` + tools + `}`
	}
	post("/v1/chat/completions", chat("plain", ""), 200)
	post("/v1/chat/completions", chat("failing", ""), 500)
	post("/v1/chat/completions", chat("local", ""), 200)
	post("/v1/chat/completions", chat("agent", `,"tools":[{"type":"function","function":{"name":"Bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}]`), 200)
	post("/v1beta/models/gem:generateContent", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`, 200)

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "listTasks", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dropTables", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a tool that is not served was called")
	}
	scene := &spanScene{mcpSession: cs.ID()}
	cs.Close()

	// The console: log in with the token, run getTask from the try-it
	// form.
	jar, _ := cookiejar.New(nil)
	ui := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := ui.PostForm(hs.URL+"/ui/login", url.Values{"token": {"ops-token-4b1d"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("console login: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/ui/api/call", strings.NewReader(`{"tool":"getTask","arguments":{"taskId":1}}`))
	req.Header.Set("X-Toolgate-Console", "1")
	resp, err = ui.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Status string }
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if out.Status != "ok" {
		t.Fatalf("console call: %+v", out)
	}

	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Built.Audit.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Built.Store.Scan(ctx, func(r *kernel.AuditRecord) error {
		c := *r
		scene.records = append(scene.records, &c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	scene.spans = rec.Ended()
	for _, sp := range scene.spans {
		if id := str(sp, semconv.GenAIToolCallIDKey); strings.HasPrefix(id, "console_") {
			scene.consoleCallID = id
		}
	}
	return scene
}

// str is a span's string attribute k, "" without one.
func str(sp sdktrace.ReadOnlySpan, k attribute.Key) string {
	for _, kv := range sp.Attributes() {
		if kv.Key == k {
			return kv.Value.String()
		}
	}
	return ""
}

// TestSemconv checks every attribute of every kind of span toolgate
// emits against the pinned registry: a name in the gen_ai, mcp, jsonrpc,
// error, server, http, rpc or enduser namespaces must be the registry's,
// with its type; an enum toolgate takes from the registry
// (gen_ai.operation.name, gen_ai.output.type, mcp.method.name) must have
// one of its values, gen_ai.provider.name too unless it is one of the
// documented custom values; error.type is set exactly on failed spans.
// Span names follow the conventions: "{gen_ai.operation.name} {model or
// tool}", and "{mcp.method.name} {tool}" for MCP.
func TestSemconv(t *testing.T) {
	sc := runScene(t)
	for _, p := range customProviders {
		for _, v := range registry[semconv.GenAIProviderNameKey].values {
			if v.Value.AsString() == p {
				t.Errorf("custom provider %q is a registry value: use the registry's", p)
			}
		}
	}
	kinds := map[string]int{}
	for _, sp := range sc.spans {
		attrs := map[attribute.Key]attribute.Value{}
		for _, kv := range sp.Attributes() {
			attrs[kv.Key] = kv.Value
		}
		where := fmt.Sprintf("span %q", sp.Name())
		for k, v := range attrs {
			if strings.HasPrefix(string(k), "toolgate.") {
				continue // toolgate's own namespace
			}
			e, ok := registry[k]
			if !ok {
				t.Errorf("%s: attribute %s is not in the semantic conventions v1.41.0", where, k)
				continue
			}
			want := map[attrType]attribute.Type{typeString: attribute.STRING, typeAny: attribute.STRING, typeInt: attribute.INT64,
				typeStrings: attribute.STRINGSLICE, typeBool: attribute.BOOL}[e.typ]
			if v.Type() != want {
				t.Errorf("%s: %s is a %s, the registry says %s", where, k, v.Type(), want)
			}
			if e.values != nil && !slices.ContainsFunc(e.values, func(kv attribute.KeyValue) bool { return kv.Value == v }) &&
				!(k == semconv.GenAIProviderNameKey && slices.Contains(customProviders, v.AsString())) {
				t.Errorf("%s: %s=%q is not one of the registry's values", where, k, v.String())
			}
		}
		failed := sp.Status().Code == codes.Error
		if et, ok := attrs[semconv.ErrorTypeKey]; ok != failed || (ok && !errorClass.MatchString(et.AsString())) {
			t.Errorf("%s: status %v, error.type %q", where, sp.Status(), et.String())
		}

		op := attrs[semconv.GenAIOperationNameKey].AsString()
		method := attrs[semconv.McpMethodNameKey].AsString()
		var kind string
		switch {
		case method != "":
			// An MCP server span: the method, and the tool once it is
			// known to be served.
			kind = "mcp " + method
			name := method
			if tool := attrs[semconv.GenAIToolNameKey].AsString(); tool != "" {
				name += " " + tool
			}
			if sp.Name() != name || sp.SpanKind() != trace.SpanKindServer || op != "execute_tool" {
				t.Errorf("%s: MCP span named %q, kind %v, operation %q", where, name, sp.SpanKind(), op)
			}
			if attrs[semconv.McpSessionIDKey].AsString() != sc.mcpSession || attrs[semconv.JSONRPCRequestIDKey].AsString() == "" {
				t.Errorf("%s: session %q, request id %q", where, attrs[semconv.McpSessionIDKey].String(), attrs[semconv.JSONRPCRequestIDKey].String())
			}
		case op == "chat" || op == "generate_content":
			// Inference: the server span of a client's request, the
			// client span of each backend pass. The provider is required;
			// the request model conditionally required (always known).
			kind = op + " " + sp.SpanKind().String()
			if sp.SpanKind() != trace.SpanKindServer && sp.SpanKind() != trace.SpanKindClient {
				t.Errorf("%s: kind %v", where, sp.SpanKind())
			}
			// Gemini's generateContent is generate_content, on its front
			// door and to its backend; the chat APIs are chat.
			gemini := attrs["toolgate.front_door"].AsString() == "gemini" || (sp.SpanKind() == trace.SpanKindClient && attrs["toolgate.provider"].AsString() == "gem")
			if (op == "generate_content") != gemini {
				t.Errorf("%s: operation %q on front door %q, provider %q", where, op, attrs["toolgate.front_door"].String(), attrs["toolgate.provider"].String())
			}
			model := attrs[semconv.GenAIRequestModelKey].AsString()
			if model == "" || attrs[semconv.GenAIProviderNameKey].AsString() == "" || sp.Name() != op+" "+model {
				t.Errorf("%s: operation %q, model %q, provider %q", where, op, model, attrs[semconv.GenAIProviderNameKey].String())
			}
			if !failed && (attrs[semconv.GenAIResponseModelKey].AsString() == "" || attrs[semconv.GenAIUsageInputTokensKey].AsInt64() <= 0 ||
				attrs[semconv.GenAIUsageOutputTokensKey].AsInt64() <= 0 || len(attrs[semconv.GenAIResponseFinishReasonsKey].AsStringSlice()) == 0) {
				t.Errorf("%s: response model, usage or finish reasons missing: %v", where, sp.Attributes())
			}
			if sp.SpanKind() == trace.SpanKindClient && (attrs[semconv.ServerAddressKey].AsString() != "127.0.0.1" || attrs[semconv.ServerPortKey].AsInt64() == 0) {
				t.Errorf("%s: server.address %q, server.port %d", where, attrs[semconv.ServerAddressKey].String(), attrs[semconv.ServerPortKey].AsInt64())
			}
		case op == "execute_tool":
			kind = op
			if tool := attrs[semconv.GenAIToolNameKey].AsString(); sp.Name() != op+" "+tool || tool == "" || sp.SpanKind() != trace.SpanKindInternal {
				t.Errorf("%s: tool %q, kind %v", where, tool, sp.SpanKind())
			}
			if _, ok := attrs[semconv.GenAIToolCallArgumentsKey]; !ok {
				t.Errorf("%s: no arguments with capture_content", where)
			}
		case op == "" && attrs["toolgate.proposal"].AsBool():
			// A decision on a call the client runs: not an operation of
			// the registry, so no gen_ai.operation.name, and named apart.
			kind = "review_tool"
			if tool := attrs[semconv.GenAIToolNameKey].AsString(); sp.Name() != "review_tool "+tool || tool == "" {
				t.Errorf("%s: tool %q", where, tool)
			}
		default:
			t.Errorf("%s: a span of no kind this test knows: %v", where, sp.Attributes())
		}
		kinds[kind]++
	}
	// Every kind toolgate emits was seen: each request's span and its
	// passes' (the mediated one has three: the Bash call, listTasks,
	// the answer), the MCP spans, the kernel's runs (two over MCP, one
	// from the console, one the gateway served) and its review.
	want := map[string]int{"chat server": 4, "chat client": 6, "generate_content server": 1, "generate_content client": 1,
		"mcp tools/call": 2, "execute_tool": 4, "review_tool": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d spans of kind %q, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("span kinds %v, want %v", kinds, want)
	}
}

// TestSpansJoinAudit checks that a span joins its audit record by call
// id, for the three ways a call is made: over MCP (an id toolgate makes,
// mcp_…), from the console's try-it form (console_…), and by a model
// through the gateway's mediation (the model's own id, with the model
// request's id as the parent, which the request's span carries as
// toolgate.request_id and its calls' spans as toolgate.parent_id).
func TestSpansJoinAudit(t *testing.T) {
	sc := runScene(t)
	type join struct{ callID, parent string }
	records := map[join][]*kernel.AuditRecord{}
	for _, r := range sc.records {
		j := join{r.CallID, r.Parent}
		records[j] = append(records[j], r)
	}
	var requestSpan sdktrace.ReadOnlySpan
	for _, sp := range sc.spans {
		if sp.Name() == "chat agent" && sp.SpanKind() == trace.SpanKindServer {
			requestSpan = sp
		}
	}
	if requestSpan == nil {
		t.Fatal("no span of the mediated request")
	}
	reqID := str(requestSpan, "toolgate.request_id")
	if rs := records[join{reqID, ""}]; reqID == "" || len(rs) != 1 || rs[0].Kind != kernel.RecordModel || rs[0].Tool != "agent" {
		t.Errorf("the request span's id %q joins %+v, want its model record", reqID, rs)
	}

	seen := map[string]bool{}
	for _, sp := range sc.spans {
		if !strings.HasPrefix(sp.Name(), "execute_tool ") && !strings.HasPrefix(sp.Name(), "review_tool ") {
			continue
		}
		id, parent, tool := str(sp, semconv.GenAIToolCallIDKey), str(sp, "toolgate.parent_id"), str(sp, semconv.GenAIToolNameKey)
		rs := records[join{id, parent}]
		if id == "" || len(rs) == 0 {
			t.Errorf("span %q (call id %q, parent %q) joins no audit record", sp.Name(), id, parent)
			continue
		}
		for _, r := range rs {
			if r.Tool != tool || r.Principal != "ops" {
				t.Errorf("span %q joins record %+v", sp.Name(), r)
			}
		}
		switch {
		case strings.HasPrefix(id, "mcp_"):
			seen["mcp"] = true
		case id == sc.consoleCallID && tool == "getTask":
			seen["console"] = true
		case parent == reqID && (id == "call_rm" && rs[0].Kind == kernel.RecordProposal && rs[0].Status == kernel.StatusDenied ||
			id == "call_list" && tool == "listTasks"):
			seen["model "+tool] = true
			if sp.Parent().SpanID() != requestSpan.SpanContext().SpanID() {
				t.Errorf("span %q is not a child of its request's span", sp.Name())
			}
		default:
			t.Errorf("span %q: call id %q, parent %q", sp.Name(), id, parent)
		}
	}
	for _, k := range []string{"mcp", "console", "model Bash", "model listTasks"} {
		if !seen[k] {
			t.Errorf("no %s call joined its audit record", k)
		}
	}
}
