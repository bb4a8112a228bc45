// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/tool"
)

// ErrUnknownFamily reports a family name that [Lookup] does not know.
var ErrUnknownFamily = errors.New("textcall: unknown family")

// ErrUnknownTool reports a tool choice that names a tool not offered.
var ErrUnknownTool = errors.New("textcall: unknown tool")

// Family is one way open models print tool calls and are told about tools.
//
// Parsing rules are unexported: a family is added to the package as one
// file declaring its markers and body parser, plus one test table. The
// rendering methods are safe for concurrent use.
type Family interface {
	// Name is the family's name as the CLI and [Lookup] spell it.
	Name() string
	// Prompt renders the tools section of the system prompt for defs,
	// honouring choice: [tool.ChoiceNone] renders nothing, a named tool
	// is the only one offered and must be called, [tool.ChoiceRequired]
	// asks for at least one call.
	Prompt(defs []tool.Definition, choice tool.Choice) (string, error)
	// FormatCalls renders calls the way the family's models print them, for
	// replaying an earlier assistant turn. Parsing the text gives the calls
	// back.
	FormatCalls(calls []tool.Call) string
	// FormatResults renders tool results the way the family's chat template
	// feeds them back (in the tool or user turn that follows the calls).
	FormatResults(results []tool.Result) string

	spec() *spec
}

// families lists every family, in the order [Names] reports them.
func families() []Family {
	return []Family{
		hermesFamily(),
		qwen3CoderFamily(),
		llama3Family(),
		mistralFamily(),
		pythonicFamily(),
		deepseekV3Family(),
		deepseekV31Family(),
		kimiFamily(),
		glmFamily(),
		graniteFamily(),
		jambaFamily(),
		internlmFamily(),
		xlamFamily(),
		harmonyFamily(),
	}
}

// Names returns the names of every family, in a stable order.
func Names() []string {
	fs := families()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name()
	}
	return out
}

// Lookup returns the family named name. Parser names used by serving
// stacks are accepted too (qwen3_coder, llama3_json, deepseek_v31, kimi_k2,
// glm45, openai, …).
func Lookup(name string) (Family, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.ReplaceAll(n, "_", "-")
	for _, f := range families() {
		if f.Name() == n {
			return f, nil
		}
		for _, a := range f.spec().aliases {
			if a == n {
				return f, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: %q (known: %s)", ErrUnknownFamily, name, strings.Join(Names(), ", "))
}

// Config tunes a [Parser]. The zero value parses with the family's defaults
// and accepts any tool name.
type Config struct {
	// Tools are the tools the model was offered. When set, calls to other
	// names are rejected (see AllowUnknownTools), and families whose
	// argument values are strings coerce them by each tool's input schema.
	Tools []tool.Definition
	// AllowUnknownTools keeps calls to tools not in Tools among the calls
	// instead of moving them to [Result.Rejected].
	AllowUnknownTools bool
	// ThinkTag is the reasoning tag, without brackets. If empty, both
	// <think> and <thinking> are recognised.
	ThinkTag string
	// ThinkOpen says the chat template already printed the opening think
	// tag, so the output starts inside the reasoning and only the closing
	// tag appears. Reasoning is then streamed from the first byte. An
	// opening tag the model prints again at the start is dropped.
	ThinkOpen bool
	// DisableImpliedReasoning keeps the strict reading of an output that
	// closes a reasoning block it never opened ("The user asks…</think>
	// answer"): the closing tag is dropped with a stray-reasoning-close
	// warning and the text before it is content.
	//
	// By default (and unless ThinkOpen is set) such text is reasoning,
	// with an implied-reasoning-open warning, as the reasoning parsers of
	// vLLM and SGLang read the outputs of Qwen3 and DeepSeek-R1, whose
	// chat templates print the opener. A Scanner cannot know that before
	// the closing tag arrives, so it holds the text at the start of an
	// output that does not open with a think tag (or with a call the
	// family only reads at the start) and sends nothing until one of
	// these decides: a closing tag (the text was reasoning); a call
	// marker of the family or an opening think tag (the text was the
	// answer, read as usual from its first byte); the end of the output,
	// or MaxReasoningHoldBytes of text without a closing tag starting in
	// them (the answer). An answer without calls is thus sent when it
	// ends, not as it arrives: set ThinkOpen or DisableImpliedReasoning
	// when you know which the model does.
	DisableImpliedReasoning bool
	// MaxReasoningHoldBytes caps the text a Scanner holds back while it
	// cannot tell reasoning from answer: text whose opener may have been
	// implied (see DisableImpliedReasoning), and a call marker inside a
	// reasoning block that has not closed, with what follows it (see
	// [Result.UnclosedReasoning]). If zero,
	// [DefaultMaxReasoningHoldBytes]; negative turns the limit off.
	MaxReasoningHoldBytes int
	// DisableReasoning turns the reasoning split off: think tags are text.
	DisableReasoning bool
	// Seed, if not zero, makes generated call ids a function of Seed and
	// the call's position, so equal seeds give equal ids (for tests and
	// reproducible output). If zero, each response (each [Parser.Parse]
	// and each [Scanner]) draws its own random seed, so two turns of one
	// conversation never carry the same generated id: providers reject a
	// conversation with duplicate tool-call ids.
	Seed uint64
	// IDStyle shapes generated call ids. If zero, the family's own style.
	IDStyle IDStyle
	// NewID, if set, replaces id generation: it is called with the call's
	// index and must return an id unique within the response.
	NewID func(index int) string
	// DiscardText makes a [Scanner] forget content and reasoning once it
	// has returned them as events, so that its memory is bounded by the
	// call in progress and the held text (MaxCallBytes,
	// MaxReasoningHoldBytes); [Scanner.Result] then has no Content or
	// Reasoning. [Parser.Parse] is not affected.
	DiscardText bool
	// StreamArguments makes a [Scanner] announce a call whose arguments
	// are a JSON object as soon as its name and the start of its
	// arguments have arrived, and send the arguments, without whitespace,
	// as they are written, rather than the whole call once its text is
	// complete. It applies to call objects and arrays of them
	// ({"name": …, "arguments": {…}}: hermes, granite, internlm, jamba,
	// xlam but for fenced blocks, llama3-json, mistral), to a name
	// followed by the object (deepseek-v3, deepseek-v3.1, kimi-k2,
	// mistral's NAME[ARGS] form, gpt-oss's call messages), and to the
	// key/value tags of qwen3-coder and glm-4.5, whose string values are
	// sent as they arrive and other values, coerced, once they end.
	// pythonic calls are sent whole, as without the option. Within one block, calls are
	// announced in order: once one cannot be (no arguments yet when it
	// ended), the rest of the block is sent whole. A call announced
	// before the model wrote its own id gets a generated one.
	//
	// A call announced early can still turn out broken when its body ends
	// (invalid JSON, cut off, too large): it is then withdrawn, with a
	// call-withdrawn warning naming its index, and is not in
	// [Scanner.Result]; the index of each later call in events is then
	// one more than its index in Result.Calls. Act on the result, not on
	// the events. [Parser.Parse] is not affected.
	StreamArguments bool
	// DisableCalls reads reasoning and answer only: no call marker of the
	// family is looked for, and everything that is not reasoning is
	// content (the family's end-of-turn markers are still dropped). It
	// is for a backend that returns calls natively but prints its
	// reasoning in think tags.
	DisableCalls bool
	// MaxCallBytes caps the text of one call in progress: a call whose
	// body runs longer has its marker and first MaxCallBytes bytes kept as
	// content, unscanned, with a call-too-large warning. If zero,
	// [DefaultMaxCallBytes]; negative turns the limit off.
	MaxCallBytes int
}

// DefaultMaxReasoningHoldBytes is the cap on held text that a zero
// [Config.MaxReasoningHoldBytes] means.
const DefaultMaxReasoningHoldBytes = 256 << 10

// DefaultMaxCallBytes is the cap on one call's text that a zero
// [Config.MaxCallBytes] means.
const DefaultMaxCallBytes = 1 << 20

// IDStyle is the shape of generated call ids.
type IDStyle int

// The id styles.
const (
	// IDDefault is the family's own style.
	IDDefault IDStyle = iota
	// IDCall is "call_" and 24 alphanumerics, as OpenAI writes them.
	IDCall
	// IDMistral is exactly 9 alphanumerics, which Mistral templates demand.
	IDMistral
)

// Result is what one model output holds once parsed.
type Result struct {
	// Content is the answer text around the calls, trimmed of surrounding
	// whitespace; empty when there was none.
	Content string
	// Reasoning is the reasoning text, trimmed; empty when there was none.
	Reasoning string
	// UnclosedReasoning reports a reasoning block still open at the end of
	// the output: all of it is reasoning and there is no answer. One
	// exception: when a call marker of the family follows in the block and
	// the text from it on holds a call (the model went from thinking
	// straight to a call), the marker ends the reasoning, with a
	// reasoning-closed-by-call warning, and UnclosedReasoning is false. A
	// block that closes never yields calls, so the text from the marker on
	// is held back until the block closes or the output ends (at most
	// [Config.MaxReasoningHoldBytes]).
	UnclosedReasoning bool
	// Calls are the complete calls to offered tools, in output order.
	Calls []tool.Call
	// Rejected are calls to tools that were not offered.
	Rejected []tool.Call
	// Warnings say what was salvaged, coerced or rejected.
	Warnings []tool.Warning
}

// Parser parses the output of one family. It is safe for concurrent use;
// each [Parser.Parse] or [Scanner] keeps its own state.
type Parser struct {
	// fixed at creation
	fam      Family
	sp       *spec
	cfg      Config
	offered  map[string]bool
	schemas  map[string]map[string]typeSet
	tab      *tables
	plain    *markerSet // see plainStopOf
	warnings []tool.Warning
}

// New returns a parser for the family named family. A nil cfg uses the
// defaults. Tool schemas that cannot be read are reported by
// [Parser.Warnings] and leave their arguments uncoerced.
func New(family string, cfg *Config) (*Parser, error) {
	f, err := Lookup(family)
	if err != nil {
		return nil, err
	}
	p := &Parser{fam: f, sp: f.spec()}
	if cfg != nil {
		p.cfg = *cfg
		p.cfg.Tools = append([]tool.Definition(nil), cfg.Tools...)
	}
	if p.cfg.DisableCalls {
		sp := *p.sp
		sp.openers, sp.machine, sp.ownReasoning = nil, nil, false
		p.sp = &sp
	}
	if p.cfg.MaxCallBytes == 0 {
		p.cfg.MaxCallBytes = DefaultMaxCallBytes
	}
	if p.cfg.MaxReasoningHoldBytes == 0 {
		p.cfg.MaxReasoningHoldBytes = DefaultMaxReasoningHoldBytes
	}
	p.tab = buildTables(p.sp, &p.cfg)
	p.plain = plainStopOf(p.sp, &p.cfg, p.tab)
	if p.cfg.IDStyle == IDDefault {
		p.cfg.IDStyle = p.sp.idStyle
		if p.cfg.IDStyle == IDDefault {
			p.cfg.IDStyle = IDCall
		}
	}
	if len(p.cfg.Tools) > 0 {
		p.offered = make(map[string]bool, len(p.cfg.Tools))
		p.schemas = make(map[string]map[string]typeSet, len(p.cfg.Tools))
		for i, d := range p.cfg.Tools {
			p.offered[d.Name] = true
			if len(d.InputSchema) == 0 {
				continue
			}
			ts, err := propertyTypes(d.InputSchema)
			if err != nil {
				p.warnings = append(p.warnings, tool.Warning{
					Pointer: fmt.Sprintf("/tools/%d/input_schema", i),
					Code:    "unreadable-schema",
					Message: fmt.Sprintf("tool %q: %v; its arguments are not coerced", d.Name, err),
				})
				continue
			}
			p.schemas[d.Name] = ts
		}
	}
	return p, nil
}

// Family returns the parser's family.
func (p *Parser) Family() Family { return p.fam }

// Warnings reports problems found in the configuration, such as a tool
// schema that could not be read.
func (p *Parser) Warnings() []tool.Warning {
	return append([]tool.Warning(nil), p.warnings...)
}

// Parse parses a complete output. It gives exactly the result of feeding
// text to a [Scanner] in any number of pieces.
func (p *Parser) Parse(text string) *Result {
	s := p.NewScanner()
	s.whole, s.keep = true, false
	s.Feed(text)
	s.Close()
	return s.Result()
}

// Parse parses text with the named family and cfg; see [Parser.Parse].
func Parse(family, text string, cfg *Config) (*Result, error) {
	p, err := New(family, cfg)
	if err != nil {
		return nil, err
	}
	return p.Parse(text), nil
}

// pickTools returns the tools a prompt offers under choice.
func pickTools(defs []tool.Definition, choice tool.Choice) ([]tool.Definition, error) {
	switch choice.Mode {
	case tool.ChoiceNone:
		return nil, nil
	case tool.ChoiceTool:
		for _, d := range defs {
			if d.Name == choice.Name {
				return []tool.Definition{d}, nil
			}
		}
		names := make([]string, len(defs))
		for i, d := range defs {
			names[i] = d.Name
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%w: %q is not among the tools (%s)", ErrUnknownTool, choice.Name, strings.Join(names, ", "))
	}
	return defs, nil
}

// Response returns r as a canonical [tool.Response]: its content,
// reasoning and calls, stopped for [tool.StopToolCalls] when it holds calls
// and for [tool.StopEnd] otherwise. Rejected calls and warnings are not
// part of a response; report them separately.
func (r *Result) Response() tool.Response {
	resp := tool.Response{Content: r.Content, Reasoning: r.Reasoning, Stop: tool.StopEnd}
	if len(r.Calls) > 0 {
		resp.Calls = append([]tool.Call(nil), r.Calls...)
		resp.Stop = tool.StopToolCalls
	}
	return resp
}
