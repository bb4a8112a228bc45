// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/textcall"
)

// maxPass1Bytes bounds the reasoning pass 1 keeps for pass 2, whatever
// the budget says: a backend that ignores max_tokens cannot grow it.
const maxPass1Bytes = 4 << 20

// usesTwoPasses reports whether p caps reasoning with two backend passes:
// two_pass true, or auto on a backend without an exact budget of its own.
func usesTwoPasses(p *Provider) bool {
	switch p.TwoPass {
	case TwoPassOn:
		return true
	case TwoPassAuto:
		return p.Backend != BackendVLLM && p.Backend != BackendLlamaCpp
	}
	return false
}

// thinkTag is the tag two passes write.
func thinkTag(p *Provider) string {
	if p.ThinkTag == "" {
		return "think"
	}
	return p.ThinkTag
}

// continuation is how p continues a trailing assistant message.
func continuation(p *Provider) Continuation {
	if p.Continuation != ContinueAuto && p.Continuation != "" {
		return p.Continuation
	}
	switch p.Backend {
	case BackendVLLM, BackendCompat:
		return ContinueFinalMessage
	case BackendLlamaCpp, BackendAnthropic, BackendOllama:
		return ContinuePrefill
	}
	return ContinueNone
}

// withExtra sets m[k] to v, making m if it is nil.
func withExtra(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		m = make(map[string]json.RawMessage, 2)
	}
	m[k] = v
	return m
}

// backendOptions are the options of a request to p, with the extras of
// p's server.
func backendOptions(p *Provider, r *Request) *BackendOptions {
	// Two passes stream from the backend whatever the client does: pass 1
	// is cut at its budget as it streams.
	o := &BackendOptions{API: p.API, Model: p.Model, Compat: p.Compat, MaxTokens: p.MaxTokens, stream: usesTwoPasses(p)}
	// Made by the first member set: most backends take none.
	var extra map[string]json.RawMessage
	switch p.Backend {
	case BackendVLLM:
		// Qwen3's and similar templates switch reasoning on and off.
		if r.ReasoningEffort == "none" || p.Parsing == ParsingDirect {
			extra = withExtra(extra, "chat_template_kwargs", json.RawMessage(`{"enable_thinking":false}`))
		} else if r.ReasoningEffort != "" || r.ThinkingBudget > 0 || p.Parsing == ParsingThinkTags {
			extra = withExtra(extra, "chat_template_kwargs", json.RawMessage(`{"enable_thinking":true}`))
		}
		if specialMarkers(p.ToolParser) {
			// The family's markers are special tokens, which the server
			// strips from the text by default: the parser needs them.
			extra = withExtra(extra, "skip_special_tokens", json.RawMessage(`false`))
		}
		if p.TwoPass == TwoPassAuto && p.MaxThinkingTokens > 0 {
			extra = withExtra(extra, "thinking_token_budget", json.RawMessage(strconv.Itoa(p.MaxThinkingTokens)))
		}
	case BackendLlamaCpp:
		if p.TwoPass == TwoPassAuto && p.MaxThinkingTokens > 0 {
			extra = withExtra(extra, "thinking_budget_tokens", json.RawMessage(strconv.Itoa(p.MaxThinkingTokens)))
		}
	case BackendOllama:
		switch r.ReasoningEffort {
		case "":
		case "none":
			extra = withExtra(extra, "think", json.RawMessage(`false`))
		case "low", "medium", "high":
			extra = withExtra(extra, "think", json.RawMessage(strconv.Quote(r.ReasoningEffort)))
		default:
			extra = withExtra(extra, "think", json.RawMessage(`true`))
		}
	}
	o.Extra = extra
	return o
}

// specialMarkers reports whether the family's call markers are special
// tokens of its models' tokenizers, which servers drop from the text
// unless asked not to.
func specialMarkers(family string) bool {
	f, err := textcall.Lookup(family)
	if err != nil {
		return false
	}
	switch f.Name() {
	case "mistral", "deepseek-v3", "deepseek-v3.1", "kimi-k2", "gpt-oss", "internlm", "granite":
		return true
	}
	return false
}

// pass1Request is r as pass 1 sends it: stopped at the think closer, for
// at most the thinking budget.
func pass1Request(r *Request, p *Provider) *Request {
	c := *r
	c.Stop = append(append([]string(nil), r.Stop...), "</"+thinkTag(p)+">")
	if p.MaxThinkingTokens > 0 {
		c.MaxTokens = p.MaxThinkingTokens
	}
	return &c
}

// pass2Request is the request of pass 2: r followed by an assistant
// message holding the closed reasoning block, which the backend
// continues with the answer.
func pass2Request(r *Request, p *Provider, reasoning string) *Request {
	c := *r
	tag := thinkTag(p)
	prefill := "<" + tag + ">\n" + strings.TrimSpace(reasoning) + "\n</" + tag + ">\n\n"
	if p.API == APIMessages {
		// Anthropic refuses a final assistant message that ends in
		// whitespace.
		prefill = strings.TrimRightFunc(prefill, unicode.IsSpace)
	}
	c.Messages = append(append([]Message(nil), r.Messages...), Message{Role: RoleAssistant, Parts: []Part{{Kind: PartText, Text: prefill}}})
	if p.MaxResponseTokens > 0 {
		c.MaxTokens = p.MaxResponseTokens
	}
	return &c
}

// errPass1Done stops reading pass 1 once the reasoning is over: the
// closer came (a backend that ignored the stop string) or the budget ran
// out (one that ignored max_tokens).
var errPass1Done = errors.New("gateway: pass 1 done")

// pass1Filter turns pass 1's output into reasoning: the leading opener is
// dropped, the text stops at the closer or the budget, and the pass's
// usage and finish are held for the turn's own.
type pass1Filter struct {
	opener, closer string
	budget         int // whitespace-separated tokens; 0: none
	words          int
	inWord         bool
	started        bool   // the leading opener was decided
	pending        string // text held: a possible opener or closer
	reasoning      strings.Builder
	usage          *Usage
	finish         Finish
	cut            bool // the gateway stopped the pass
	overBudget     bool // at the budget, which the backend did not enforce
	failed         bool
}

// answer is what pass 1 answered, for its span; model is what the
// backend named in it.
func (f *pass1Filter) answer(model string) passAnswer {
	a := passAnswer{model: model, usage: unknownUsage(), finish: f.finish, reported: f.failed}
	if f.usage != nil {
		a.usage.merge(*f.usage)
	}
	return a
}

func (f *pass1Filter) Feed(e Event, emit func(Event) error) error {
	switch e.Kind {
	case EventText:
		return f.text(e.Text, emit)
	case EventReasoning:
		// A server that splits reasoning itself.
		return f.reason(e.Text, emit)
	case EventUsage:
		f.usage = e.Usage
		return nil
	case EventFinish:
		f.finish = e.Finish
		return nil
	case EventCall, EventArguments, EventCallEnd:
		// A call while reasoning: pass 2 decides the calls.
		return nil
	case EventError:
		f.failed = true
	}
	return emit(e)
}

func (f *pass1Filter) Close(emit func(Event) error) error {
	if f.pending != "" && !f.cut {
		p := f.pending
		f.pending = ""
		if !f.started && strings.HasPrefix(f.opener, strings.TrimLeftFunc(p, unicode.IsSpace)) {
			return nil // only (part of) the opener
		}
		return f.reason(p, emit)
	}
	return nil
}

func (f *pass1Filter) text(s string, emit func(Event) error) error {
	if f.cut {
		return errPass1Done
	}
	s = f.pending + s
	f.pending = ""
	if !f.started {
		t := strings.TrimLeftFunc(s, unicode.IsSpace)
		switch {
		case strings.HasPrefix(t, f.opener):
			s, f.started = t[len(f.opener):], true
		case len(t) < len(f.opener) && strings.HasPrefix(f.opener, t):
			f.pending = s
			return nil
		default:
			f.started = true
		}
	}
	if i := strings.Index(s, f.closer); i >= 0 {
		if err := f.reason(s[:i], emit); err != nil {
			return err
		}
		f.cut = true
		return errPass1Done
	}
	// Hold a tail that may be the start of the closer.
	for n := min(len(f.closer)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, f.closer[:n]) {
			f.pending, s = s[len(s)-n:], s[:len(s)-n]
			break
		}
	}
	return f.reason(s, emit)
}

// reason sends reasoning, cutting it at the budget.
func (f *pass1Filter) reason(s string, emit func(Event) error) error {
	if s == "" || f.cut {
		return nil
	}
	end := len(s)
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && !f.inWord {
			f.words++
			if f.budget > 0 && f.words > f.budget {
				end, f.cut, f.overBudget = i, true, true
				break
			}
		}
		f.inWord = !space
	}
	if room := maxPass1Bytes - f.reasoning.Len(); end > room {
		for end = room; end > 0 && !utf8.RuneStart(s[end]); end-- {
		}
		f.cut = true
	}
	s = s[:end]
	f.reasoning.WriteString(s)
	if s != "" {
		if err := emit(Event{Kind: EventReasoning, Text: s}); err != nil {
			return err
		}
	}
	if f.cut {
		return errPass1Done
	}
	return nil
}

// runTwoPass answers with two passes: resp is pass 1's response.
func (t *turn) runTwoPass(ctx context.Context, resp *http.Response, emit func(Event) error, flush func() error) error {
	p := t.p
	tag := thinkTag(p)
	f1 := &pass1Filter{opener: "<" + tag + ">", closer: "</" + tag + ">", budget: p.MaxThinkingTokens}
	if p.ThinkOpen {
		f1.started = true
	}
	start := t.h.cfg.Now()
	err := t.pump(resp, f1, emit, flush)
	resp.Body.Close()
	t.observePass(1, start)
	a1 := f1.answer(t.s.respModel)
	if err != nil && !errors.Is(err, errPass1Done) {
		t.h.endPass(t.s, p, &a1, err)
		return err
	}
	t.h.endPass(t.s, p, &a1, nil)
	if f1.failed {
		return nil // the backend's error event ended the turn
	}
	reasoning := f1.reasoning.String()
	if f1.overBudget || f1.finish == FinishLength {
		// The budget closed the block: the model's last thought.
		if msg := p.BudgetMessage; msg != "" {
			if err := emit(Event{Kind: EventReasoning, Text: msg}); err != nil {
				return err
			}
			reasoning += msg
		}
	}
	if err := flush(); err != nil {
		return err
	}
	r2 := pass2Request(t.out.base, p, reasoning)
	opts := backendOptions(p, r2)
	opts.lower = t.h.lower
	if continuation(p) == ContinueFinalMessage {
		if opts.Extra == nil {
			opts.Extra = map[string]json.RawMessage{}
		}
		opts.Extra["continue_final_message"] = json.RawMessage(`true`)
		opts.Extra["add_generation_prompt"] = json.RawMessage(`false`)
	}
	out2, err := EncodeRequest(r2, opts)
	if err != nil {
		return err
	}
	start = t.h.cfg.Now()
	pctx := t.h.passSpan(ctx, p, 2, t.s)
	resp2, cancel2, err := t.h.attempt(pctx, p, out2, t.s)
	// Pass 2's own answer, for its span: the usage before it is merged
	// with pass 1's.
	a2 := passAnswer{model: p.Model, usage: unknownUsage()}
	defer func() {
		if resp2 == nil {
			t.h.endPass(t.s, p, nil, err)
			return
		}
		t.h.endPass(t.s, p, &a2, err)
	}()
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		msg := "the model backend did not continue the answer (pass 2 of 2): " + failureText(err)
		var be *backendError
		if errors.As(err, &be) {
			msg = "the model backend refused to continue the answer (pass 2 of 2): status " + strconv.Itoa(be.status) + ": " + redactKey(be.msg, p)
		}
		return emit(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: msg}})
	}
	defer cancel2()
	defer resp2.Body.Close()
	f2, err := t.answerFilter()
	if err != nil {
		return err
	}
	u1 := f1.usage
	err = t.pump(resp2, f2, func(e Event) error {
		switch e.Kind {
		case EventStart:
			if e.Model != "" {
				a2.model = e.Model
			}
			return nil
		case EventUsage:
			a2.usage.merge(*e.Usage)
			e.Usage = mergePasses(u1, e.Usage)
		case EventFinish:
			a2.finish = e.Finish
		case EventError:
			a2.reported = true
		}
		return emit(e)
	}, flush)
	t.observePass(2, start)
	return err
}

// mergePasses is the usage of a two-pass turn: the prompt billed once
// (pass 1's), the output of both passes, pass 1's output as reasoning.
func mergePasses(u1, u2 *Usage) *Usage {
	if u1 == nil {
		return u2
	}
	u := *u2
	if u1.InputTokens >= 0 {
		u.InputTokens = u1.InputTokens
	}
	if u1.OutputTokens >= 0 && u2.OutputTokens >= 0 {
		u.OutputTokens = u1.OutputTokens + u2.OutputTokens
		u.ReasoningTokens = u1.OutputTokens + max(u2.ReasoningTokens, 0)
	}
	if u1.CacheReadTokens >= 0 {
		u.CacheReadTokens = u1.CacheReadTokens
	}
	return &u
}

func (t *turn) observePass(n int, start time.Time) {
	if m := t.h.cfg.Metrics; m != nil {
		m.passes.WithLabelValues(t.p.Name, strconv.Itoa(n)).Observe(t.h.cfg.Now().Sub(start).Seconds())
	}
}
