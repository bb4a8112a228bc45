// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Model is the demo model: an OpenAI Chat Completions endpoint
// (POST /v1/chat/completions, streaming or not) that answers questions
// about the task tracker by calling its tools. It has no weights and is
// deterministic: given the same conversation it gives the same answer.
//
//   - A question: it calls the tool whose name ends in "listTasks" with
//     {} and, once it has the result, lists the tasks it holds.
//   - A request to add or create a task: it calls "createTask" with the
//     title, and no justification — which the demo's policy denies — and
//     then says what the gateway answered.
//   - Without the tools it needs, or after another result, it says so.
//
// Its reasoning is in reasoning_content. It is safe for concurrent use.
type Model struct{}

// NewModel returns the demo model.
func NewModel() *Model { return &Model{} }

// Transport returns a RoundTripper that answers every request with the
// model in-process, whatever its host.
func (m *Model) Transport() http.RoundTripper { return inProcess{m} }

// maxModelRequest bounds a request to the demo model.
const maxModelRequest = 4 << 20

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// step is what the model says in one turn: reasoning, then a text or one
// call.
type step struct {
	reasoning string
	text      string
	call      string // tool name
	args      string
	id        string // the call's
}

// ServeHTTP answers POST /v1/chat/completions.
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		modelError(w, http.StatusNotFound, "the demo model serves POST /v1/chat/completions only")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxModelRequest+1))
	if err != nil || len(body) > maxModelRequest {
		modelError(w, http.StatusBadRequest, "the request could not be read, or is larger than 4 MiB")
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		modelError(w, http.StatusBadRequest, "the request is not a Chat Completions request: "+err.Error())
		return
	}
	s := m.next(&req)
	s.id = "call_demo_" + strconv.Itoa(len(req.Messages))
	model := req.Model
	if model == "" {
		model = "demo"
	}
	in, out := words(string(body)), words(s.reasoning)+words(s.text)+words(s.args)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, wholeAnswer(model, &s, in, out))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, chunk := range streamAnswer(model, &s, in, out) {
		io.WriteString(w, "data: "+chunk+"\n\n")
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// next decides the model's turn from the conversation: the last user
// message, and the tool results after it.
func (m *Model) next(req *chatRequest) step {
	last := -1
	for i, msg := range req.Messages {
		if msg.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return step{text: "Ask me about the tasks in the tracker, or ask me to add one."}
	}
	question := contentText(req.Messages[last].Content)
	var results []string
	for _, msg := range req.Messages[last+1:] {
		if msg.Role == "tool" {
			results = append(results, contentText(msg.Content))
		}
	}
	tools := map[string]string{}
	for _, t := range req.Tools {
		for _, want := range [...]string{"listTasks", "createTask"} {
			if strings.HasSuffix(t.Function.Name, want) {
				tools[want] = t.Function.Name
			}
		}
	}
	lower := strings.ToLower(question)
	if title, ok := wantsNewTask(question, lower); ok {
		if len(results) > 0 {
			return step{reasoning: "The gateway answered my createTask call; I report what it said.",
				text: "I asked to add the task \"" + title + "\". The gateway answered: " + results[len(results)-1]}
		}
		name, ok := tools["createTask"]
		if !ok {
			return step{text: "I would add the task \"" + title + "\", but no createTask tool was offered to me."}
		}
		args, _ := json.Marshal(map[string]string{"title": title})
		return step{reasoning: "The user wants a new task. I call createTask with its title.", call: name, args: string(args)}
	}
	if len(results) > 0 {
		return step{reasoning: "I have the tracker's answer; I summarise it.", text: summarise(results[len(results)-1])}
	}
	name, ok := tools["listTasks"]
	if !ok {
		return step{text: "I can only answer questions about the task tracker, and no listTasks tool was offered to me."}
	}
	return step{reasoning: "The user asks about the tasks. I call listTasks to see them.", call: name, args: "{}"}
}

// wantsNewTask reports whether the question asks for a task to be added,
// and the title: what follows "add" or "create" (and "a task"), quotes
// removed.
func wantsNewTask(q, lower string) (string, bool) {
	for _, verb := range [...]string{"add ", "create "} {
		i := strings.Index(lower, verb)
		if i < 0 {
			continue
		}
		t := q[i+len(verb):]
		for _, filler := range [...]string{"a task called ", "a task named ", "a task: ", "a task ", "task "} {
			if strings.HasPrefix(strings.ToLower(t), filler) {
				t = t[len(filler):]
				break
			}
		}
		t = strings.Trim(strings.TrimSpace(t), "\"'.!?")
		if t == "" {
			t = "New task"
		}
		if len(t) > 200 {
			t = t[:200]
		}
		return t, true
	}
	return "", false
}

// summarise lists the tasks of a listTasks result, or quotes the result.
func summarise(result string) string {
	var out struct {
		Tasks []Task `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(result), &out); err != nil || out.Tasks == nil {
		return "The tracker answered: " + result
	}
	if len(out.Tasks) == 0 {
		return "The tracker holds no tasks."
	}
	var b strings.Builder
	if len(out.Tasks) == 1 {
		b.WriteString("The tracker holds 1 task:")
	} else {
		fmt.Fprintf(&b, "The tracker holds %d tasks:", len(out.Tasks))
	}
	for _, t := range out.Tasks {
		fmt.Fprintf(&b, "\n- #%d %s (%s", t.ID, t.Title, t.Status)
		if t.Assignee != "" {
			b.WriteString(", " + t.Assignee)
		}
		b.WriteString(")")
	}
	return b.String()
}

// contentText is a message's text: a string, or the text of its parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func words(s string) int { return len(strings.Fields(s)) }

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func chunk(model, choice string) string {
	return `{"id":"chatcmpl-demo","object":"chat.completion.chunk","created":0,"model":` + quote(model) + `,"choices":[` + choice + `]}`
}

func usage(in, out int) string {
	return `{"prompt_tokens":` + strconv.Itoa(in) + `,"completion_tokens":` + strconv.Itoa(out) + `,"total_tokens":` + strconv.Itoa(in+out) + `}`
}

func streamAnswer(model string, s *step, in, out int) []string {
	var chunks []string
	delta := func(d, finish string) {
		chunks = append(chunks, chunk(model, `{"index":0,"delta":`+d+`,"finish_reason":`+finish+`}`))
	}
	delta(`{"role":"assistant","content":""}`, "null")
	if s.reasoning != "" {
		delta(`{"reasoning_content":`+quote(s.reasoning)+`}`, "null")
	}
	finish := `"stop"`
	if s.call != "" {
		delta(`{"tool_calls":[{"index":0,"id":`+quote(s.id)+`,"type":"function","function":{"name":`+quote(s.call)+`,"arguments":""}}]}`, "null")
		delta(`{"tool_calls":[{"index":0,"function":{"arguments":`+quote(s.args)+`}}]}`, "null")
		finish = `"tool_calls"`
	} else {
		delta(`{"content":`+quote(s.text)+`}`, "null")
	}
	delta(`{}`, finish)
	chunks = append(chunks, `{"id":"chatcmpl-demo","object":"chat.completion.chunk","created":0,"model":`+quote(model)+`,"choices":[],"usage":`+usage(in, out)+`}`)
	return chunks
}

func wholeAnswer(model string, s *step, in, out int) string {
	msg := `{"role":"assistant","content":` + quote(s.text)
	if s.reasoning != "" {
		msg += `,"reasoning_content":` + quote(s.reasoning)
	}
	finish := "stop"
	if s.call != "" {
		msg = `{"role":"assistant","content":null,"reasoning_content":` + quote(s.reasoning) +
			`,"tool_calls":[{"id":` + quote(s.id) + `,"type":"function","function":{"name":` + quote(s.call) + `,"arguments":` + quote(s.args) + `}}]`
		finish = "tool_calls"
	}
	return `{"id":"chatcmpl-demo","object":"chat.completion","created":0,"model":` + quote(model) +
		`,"choices":[{"index":0,"message":` + msg + `},"finish_reason":"` + finish + `"}],"usage":` + usage(in, out) + `}`
}

func modelError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, `{"error":{"message":`+quote(msg)+`,"type":"invalid_request_error"}}`)
}
