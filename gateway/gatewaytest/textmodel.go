// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gatewaytest

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// TextModel is a scripted text model behind the Chat Completions
// endpoint, for tests of what the gateway asks of open-model servers: it
// prints Script, its whole output for a conversation, and honours what
// such servers honour. A token is a whitespace-separated word.
//
//   - stop: the output ends before the first stop string (finish stop);
//   - max_tokens or max_completion_tokens: at most that many tokens
//     (finish length);
//   - a trailing assistant message (continue_final_message with vLLM,
//     SGLang and TGI; a prefill with llama.cpp) is continued: the output is
//     the rest of Script after that message when Script starts with it,
//     else the part of Script after its first "</think>" (the answer after
//     the reasoning), else nothing;
//   - POST /tokenize with messages and POST /detokenize, as vLLM serves
//     them, and POST /apply-template, as llama.cpp does: the prompt is
//     the messages rendered as "<|ROLE|>\nCONTENT\n", the last left open
//     when it is continued (DropContinued drops it instead, as a template
//     that strips the reasoning of the final message would).
//
// Usage comes in the last chunk: prompt tokens are the words of the
// messages, completion tokens the words written. Use Respond as a
// Backend's Respond.
type TextModel struct {
	// Script is the model's output.
	Script string
	// IgnoreStop and IgnoreMaxTokens make a server that disregards them.
	IgnoreStop, IgnoreMaxTokens bool
	// RefuseContinue answers 400 to continue_final_message.
	RefuseContinue bool
	// DropContinued renders templates without the continued message.
	DropContinued bool
}

type textRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stop                []string `json:"stop"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Continue            bool     `json:"continue_final_message"`
	AddGenerationPrompt *bool    `json:"add_generation_prompt"`
	Tokens              []int    `json:"tokens"`
	Model               string   `json:"model"`
}

func (r *textRequest) text(i int) string {
	var s string
	if json.Unmarshal(r.Messages[i].Content, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(r.Messages[i].Content, &parts)
	for _, p := range parts {
		s += p.Text
	}
	return s
}

// Respond answers one request.
func (m *TextModel) Respond(r Request) Reply {
	var req textRequest
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return Reply{Status: 400, Body: ErrorBody("invalid_request_error", "body is not JSON")}
	}
	switch {
	case strings.HasSuffix(r.Path, "/tokenize"):
		prompt := m.render(&req)
		toks := make([]int, len(prompt))
		for i := range prompt {
			toks[i] = int(prompt[i])
		}
		b, _ := json.Marshal(map[string]any{"tokens": toks, "count": len(toks), "max_model_len": 32768})
		return Reply{Body: b, ContentType: "application/json"}
	case strings.HasSuffix(r.Path, "/detokenize"):
		bs := make([]byte, len(req.Tokens))
		for i, t := range req.Tokens {
			bs[i] = byte(t)
		}
		b, _ := json.Marshal(map[string]string{"prompt": string(bs)})
		return Reply{Body: b, ContentType: "application/json"}
	case strings.HasSuffix(r.Path, "/apply-template"):
		b, _ := json.Marshal(map[string]string{"prompt": m.render(&req)})
		return Reply{Body: b, ContentType: "application/json"}
	}
	if req.Continue && m.RefuseContinue {
		return Reply{Status: 400, Body: ErrorBody("invalid_request_error", "continue_final_message is not supported")}
	}
	out := m.Script
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "assistant" {
		prefix := req.text(n - 1)
		if rest, ok := strings.CutPrefix(m.Script, prefix); ok {
			out = rest
		} else if _, after, ok := strings.Cut(m.Script, "</think>"); ok {
			out = strings.TrimLeftFunc(after, unicode.IsSpace)
		} else {
			out = "" // a script that never stops reasoning has no answer
		}
	}
	finish := "stop"
	if !m.IgnoreStop {
		cut := len(out)
		for _, s := range req.Stop {
			if i := strings.Index(out, s); i >= 0 && i < cut {
				cut = i
			}
		}
		out = out[:cut]
	}
	max := req.MaxTokens
	if req.MaxCompletionTokens > 0 {
		max = req.MaxCompletionTokens
	}
	toks := splitTokens(out)
	if max > 0 && len(toks) > max && !m.IgnoreMaxTokens {
		toks, finish = toks[:max], "length"
	}
	prompt := 0
	for i := range req.Messages {
		prompt += len(strings.Fields(req.text(i)))
	}
	lines := [][]byte{[]byte(`{"id":"tm-1","model":"text-model","choices":[{"index":0,"delta":{"role":"assistant"}}]}`)}
	words := 0
	for _, t := range toks {
		b, _ := json.Marshal(t)
		lines = append(lines, fmt.Appendf(nil, `{"id":"tm-1","model":"text-model","choices":[{"index":0,"delta":{"content":%s}}]}`, b))
		if strings.TrimSpace(t) != "" {
			words++
		}
	}
	lines = append(lines,
		fmt.Appendf(nil, `{"id":"tm-1","model":"text-model","choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, finish),
		fmt.Appendf(nil, `{"id":"tm-1","model":"text-model","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, prompt, words, prompt+words))
	return Reply{Body: ChatSSE(lines...)}
}

// splitTokens cuts s into tokens: each word with the whitespace after it
// (the first with what comes before it too).
func splitTokens(s string) []string {
	var toks []string
	start := 0
	inWord := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord && i > start && strings.TrimSpace(s[start:i]) != "" {
			toks = append(toks, s[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(s) {
		toks = append(toks, s[start:])
	}
	return toks
}

// render is the fake template: each message as "<|ROLE|>\nCONTENT\n",
// then "<|assistant|>\n" for a new turn; a continued last message is left
// open (or dropped with DropContinued).
func (m *TextModel) render(req *textRequest) string {
	var b strings.Builder
	n := len(req.Messages)
	cont := req.Continue || (req.AddGenerationPrompt == nil && n > 0 && req.Messages[n-1].Role == "assistant")
	for i := range req.Messages {
		last := i == n-1
		if last && cont && m.DropContinued {
			b.WriteString("<|" + req.Messages[i].Role + "|>\n")
			break
		}
		b.WriteString("<|" + req.Messages[i].Role + "|>\n" + req.text(i))
		if !(last && cont) {
			b.WriteString("\n")
		}
	}
	if !cont {
		b.WriteString("<|assistant|>\n")
	}
	return b.String()
}
