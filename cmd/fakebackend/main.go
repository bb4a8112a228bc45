// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Command fakebackend is the model backend of the end-to-end tests: it
// serves the Chat Completions (/v1/chat/completions), Responses
// (/v1/responses), Messages (/v1/messages) and Gemini
// (/v1beta/models/{model}:generateContent and :streamGenerateContent)
// endpoints on a loopback port and answers by the model name in the
// request (in the path for Gemini). Every model streams when asked to and
// otherwise answers with one whole JSON body, as the real APIs do: the
// same answer, made whole by gatewaytest (see gatewaytest.Collapse). The
// models:
//
//   - "tools": a tool-call turn (reasoning, then get_weather for Paris)
//     until the conversation holds a tool result, then the answer;
//   - "text": reasoning, then a short answer;
//   - "recorded:DIR/FILE": a recording of the shared corpora
//     (corpora/gateway/DIR/FILE), replayed as it was: a stream (.sse,
//     .chunks.txt; made whole for a request that asks for no stream) or
//     a whole answer (.json, sent as it is);
//   - "agent:policy": a coding agent's model in front of a gateway that
//     mediates its calls (see policy.go; Chat Completions only);
//   - "agent:read": a coding agent's model: it asks the client to read the
//     .txt file its prompt names with the client's own read tool (Read,
//     read, shell, …, by the name the client declared), then answers
//     "The file says: " and the tool result (see agent.go);
//   - "textmodel:tools" and "textmodel:text": the same two conversations
//     from a text model without tool support, which prints its reasoning
//     in <think> tags and its calls as Hermes <tool_call> blocks (Chat
//     Completions only, honouring stop, max_tokens, continued assistant
//     messages and vLLM's /tokenize and /detokenize, as
//     gatewaytest.TextModel does); "textmodel:agent:read" is the agent
//     as a text model (Hermes).
//
// With -record DIR it also writes every request it gets to DIR, one
// numbered JSON file each, to capture what real agents send.
//
// By default it cuts every answer into flushed pieces of 1 to 64 bytes,
// so that clients meet events and JSON split anywhere; with -pieces
// events it writes a stream one SSE event per flushed write and a whole
// answer in one, as a real server does (loadgen -compare runs it so).
//
// It prints "listening on http://ADDR" once it is ready and stops on
// SIGTERM. Test-only: it answers anyone on loopback.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/toolgate/toolgate/gateway"
	"github.com/toolgate/toolgate/gateway/gatewaytest"
	"github.com/toolgate/toolgate/internal/sse"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	corpora := flag.String("corpora", os.Getenv("TOOLGATE_CORPORA"), "the shared corpora, for recorded: models")
	record := flag.String("record", "", "write each request (path, headers without credentials, body) to a numbered file in this directory")
	pieces := flag.String("pieces", "random", "how answers are written: random (pieces of 1–64 bytes, each flushed, to find framing bugs) or events (one write per SSE event, as a real server streams, and a whole answer in one)")
	flag.Parse()
	if *pieces != "random" && *pieces != "events" {
		fmt.Fprintln(os.Stderr, "fakebackend: -pieces is random or events")
		os.Exit(2)
	}
	b := gatewaytest.NewBackend()
	rec := &recorder{dir: *record}
	b.Respond = func(r gatewaytest.Request) gatewaytest.Reply {
		if rec.dir != "" {
			rec.record(r)
		}
		rep := respond(r, *corpora)
		if *pieces == "events" {
			rep.Seed, rep.PerEvent = 0, true
		}
		return rep
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakebackend:", err)
		os.Exit(1)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: b}
	go srv.Serve(ln)
	<-ctx.Done()
	srv.Close()
}

func apiOf(path string) gateway.API {
	switch {
	case strings.HasSuffix(path, "/messages"):
		return gateway.APIMessages
	case strings.HasSuffix(path, "/responses"):
		return gateway.APIResponses
	case strings.HasSuffix(path, ":streamGenerateContent"), strings.HasSuffix(path, ":generateContent"):
		return gateway.APIGemini
	}
	return gateway.APIChat
}

func respond(r gatewaytest.Request, corpora string) gatewaytest.Reply {
	var head struct{ Model string }
	if err := json.Unmarshal(r.Body, &head); err != nil {
		return gatewaytest.Reply{Status: 400, Body: gatewaytest.ErrorBody("invalid_request_error", "body is not JSON")}
	}
	api := apiOf(r.Path)
	if api == gateway.APIGemini {
		head.Model = gatewaytest.GeminiModel(r.Path)
	}
	if file, ok := strings.CutPrefix(head.Model, "recorded:"); ok {
		data, err := os.ReadFile(filepath.Join(corpora, "gateway", filepath.Clean("/"+file)))
		if err != nil {
			return gatewaytest.Reply{Status: 404, Body: gatewaytest.ErrorBody("not_found_error", "no such recording")}
		}
		if strings.HasSuffix(file, ".chunks.txt") {
			kind := "events"
			if api == gateway.APIChat {
				kind = "chat"
			}
			bodies, err := gatewaytest.FrameChunks(kind, data)
			if err != nil || len(bodies) == 0 {
				return gatewaytest.Reply{Status: 500, Body: gatewaytest.ErrorBody("server_error", "unreadable recording")}
			}
			data = bodies[0]
		}
		if strings.HasSuffix(file, ".json") {
			return gatewaytest.Reply{Body: data, ContentType: "application/json", Seed: uint64(len(data))}
		}
		return gatewaytest.Reply{Body: data, Seed: uint64(len(data))}
	}
	if scenario, ok := strings.CutPrefix(head.Model, "textmodel:"); ok {
		return textModel(scenario, r)
	}
	if head.Model == "agent:read" {
		return agentReply(api, r)
	}
	if head.Model == "agent:policy" && api == gateway.APIChat {
		return policyReply(r)
	}
	resultSent := bytes.Contains(r.Body, []byte(`"role":"tool"`)) || bytes.Contains(r.Body, []byte(`"tool_result"`)) || bytes.Contains(r.Body, []byte(`"function_call_output"`)) ||
		bytes.Contains(r.Body, []byte(`"functionResponse"`))
	var events []gateway.Event
	u1 := gateway.Usage{InputTokens: 42, OutputTokens: -1, ReasoningTokens: -1, CacheReadTokens: -1, CacheWriteTokens: -1}
	events = append(events, gateway.Event{Kind: gateway.EventStart, ID: "fake-1", Model: head.Model}, gateway.Event{Kind: gateway.EventUsage, Usage: &u1})
	switch {
	case head.Model == "tools" && !resultSent:
		events = append(events,
			gateway.Event{Kind: gateway.EventReasoning, Text: "The user wants the weather; "},
			gateway.Event{Kind: gateway.EventReasoning, Text: "call get_weather."},
			gateway.Event{Kind: gateway.EventCall, Index: 0, ID: "call_fake_1", Name: "get_weather"},
			gateway.Event{Kind: gateway.EventArguments, Index: 0, Text: `{"city":`},
			gateway.Event{Kind: gateway.EventArguments, Index: 0, Text: `"Paris"}`},
			gateway.Event{Kind: gateway.EventCallEnd, Index: 0})
	case head.Model == "tools":
		events = append(events,
			gateway.Event{Kind: gateway.EventReasoning, Text: "The tool answered."},
			gateway.Event{Kind: gateway.EventText, Text: "It is 18°C "},
			gateway.Event{Kind: gateway.EventText, Text: "and sunny in Paris."})
	default:
		events = append(events,
			gateway.Event{Kind: gateway.EventReasoning, Text: "A greeting."},
			gateway.Event{Kind: gateway.EventText, Text: "Hello from "},
			gateway.Event{Kind: gateway.EventText, Text: "the fake backend."})
	}
	u2 := gateway.Usage{InputTokens: -1, OutputTokens: 17, ReasoningTokens: 5, CacheReadTokens: -1, CacheWriteTokens: -1}
	events = append(events, gateway.Event{Kind: gateway.EventUsage, Usage: &u2}, gateway.Event{Kind: gateway.EventFinish, Finish: gateway.FinishStop})
	var buf bytes.Buffer
	enc, _ := gateway.NewStreamEncoder(api, sse.NewWriter(&buf), &gateway.EncodeOptions{IncludeUsage: true, Created: 1700000000})
	for _, e := range events {
		enc.Encode(e)
	}
	enc.Close()
	return gatewaytest.Reply{Body: buf.Bytes(), Seed: uint64(len(r.Body))}
}

// textModel answers as a text model: the tool-call turn until the
// conversation holds a Hermes tool response, then the answer.
func textModel(scenario string, r gatewaytest.Request) gatewaytest.Reply {
	script := "<think>A greeting.</think>\n\nHello from the fake backend."
	if scenario == "agent:read" {
		script = textAgentScript(r.Body)
	}
	if scenario == "tools" {
		script = "<think>The user wants the weather; call get_weather.</think>\n\n" +
			"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
		// A result written back, not the prompt's mention of the tags
		// (the body is JSON: the newline after the tag is escaped).
		if bytes.Contains(r.Body, []byte(`<tool_response>\n`)) {
			script = "<think>The tool answered.</think>\n\nIt is 18°C and sunny in Paris."
		}
	}
	return (&gatewaytest.TextModel{Script: script}).Respond(r)
}
