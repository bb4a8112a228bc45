// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"path"
	"strconv"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
)

// DefaultMaxToolSteps bounds the backend passes of one request that the
// gateway continues itself, when [Mediation.MaxToolSteps] is zero.
const DefaultMaxToolSteps = 8

// Mediation puts the kernel between a model and every tool call it makes
// through the gateway (gateway.mediate_tools). Each call is held until its
// arguments are complete, then decided with the request's principal:
//
//   - a call to one of the client's tools is reviewed ([kernel.Kernel.Review]):
//     allowed, it reaches the client as the model made it; denied, the
//     client never sees it and the model gets the denial as the call's
//     result;
//   - a call to a served tool is run through the whole kernel
//     ([kernel.Kernel.Call]) and its result fed back to the model; the
//     client sees it as the API's server-tool blocks;
//   - a call to any other tool is refused as unknown, and the model told.
//
// When every call of a backend pass was resolved here (denied, unknown or
// served), the gateway continues the turn itself with the results, up to
// MaxToolSteps passes. A pass that also holds allowed client calls ends the
// turn: the client runs its calls, and the others are dropped with a
// warning (the model was not told of them).
type Mediation struct {
	// Kernel decides and runs the calls. Required.
	Kernel *kernel.Kernel
	// ClientTools give the client's tools their safety class by name
	// glob (path.Match syntax); the first match wins.
	ClientTools []ClientTool
	// DefaultClientSafety is the class of a client tool no entry names.
	// If empty, kernel.SafetyWrite.
	DefaultClientSafety kernel.Safety
	// Served are the tools the gateway offers the model beside the
	// client's and runs itself; each must be in the kernel's registry. A
	// client tool of the same name wins.
	Served []ServedTool
	// MaxToolSteps bounds the backend passes of one request. If zero,
	// DefaultMaxToolSteps.
	MaxToolSteps int
	// MCPServersAllowed are the MCP servers a request may name (Anthropic
	// mcp_servers, Responses mcp tools): a URL, or a prefix ending in "/".
	// A request naming another is refused with a 400 naming its URL. The
	// servers' tools are offered and run like the served ones, each
	// through the kernel Connect made for its server.
	MCPServersAllowed []string
	// Connect connects an allowed server; required with
	// MCPServersAllowed.
	Connect MCPConnector
}

// ClientTool gives the client's tools whose names match Name a safety
// class.
type ClientTool struct {
	Name   string
	Safety kernel.Safety
}

// ServedTool is a tool the gateway offers models and runs: its
// definition, and the name of its source (the server_name or
// server_label clients see).
type ServedTool struct {
	Definition tool.Definition
	Source     string
	// Kernel runs it; if nil, the Mediation's.
	Kernel *kernel.Kernel
}

// mediation is a Handler's compiled Mediation.
type mediation struct {
	Mediation
	served map[string]*ServedTool
	pool   *mcpPool // nil without Connect
}

func newMediation(m *Mediation) (*mediation, error) {
	if m.Kernel == nil {
		return nil, errors.New("gateway: mediation needs a kernel")
	}
	md := &mediation{Mediation: *m, served: map[string]*ServedTool{}}
	if md.DefaultClientSafety == "" {
		md.DefaultClientSafety = kernel.SafetyWrite
	}
	if md.MaxToolSteps <= 0 {
		md.MaxToolSteps = DefaultMaxToolSteps
	}
	if len(md.MCPServersAllowed) > 0 && md.Connect == nil {
		return nil, errors.New("gateway: MCPServersAllowed needs Connect")
	}
	if md.Connect != nil {
		md.pool = &mcpPool{connect: md.Connect, conns: map[string]*mcpConn{}}
	}
	for _, c := range md.ClientTools {
		if _, err := path.Match(c.Name, ""); err != nil {
			return nil, fmt.Errorf("gateway: client tool pattern %q: %w", c.Name, err)
		}
		switch c.Safety {
		case kernel.SafetyRead, kernel.SafetyWrite, kernel.SafetyDestructive:
		default:
			return nil, fmt.Errorf("gateway: client tool %q: unknown safety class %q", c.Name, c.Safety)
		}
	}
	for i := range md.Served {
		s := &md.Served[i]
		if _, dup := md.served[s.Definition.Name]; dup {
			return nil, fmt.Errorf("gateway: served tool %q listed twice", s.Definition.Name)
		}
		if _, ok := m.Kernel.Registry().Lookup(s.Definition.Name); !ok {
			return nil, fmt.Errorf("gateway: served tool %q is not in the kernel's registry", s.Definition.Name)
		}
		md.served[s.Definition.Name] = s
	}
	return md, nil
}

// safety is the safety class of the client's tool name.
func (md *mediation) safety(name string) kernel.Safety {
	for _, c := range md.ClientTools {
		if ok, _ := path.Match(c.Name, name); ok {
			return c.Safety
		}
	}
	return md.DefaultClientSafety
}

// offer returns r with the served tools after the client's; a served
// tool the client declared itself is the client's.
func (md *mediation) offer(r *Request) *Request {
	if len(md.Served) == 0 {
		return r
	}
	c := *r
	c.Tools = append([]tool.Definition(nil), r.Tools...)
	for i := range md.Served {
		if clientTool(r.Tools, md.Served[i].Definition.Name) == nil {
			c.Tools = append(c.Tools, md.Served[i].Definition)
		}
	}
	return &c
}

// clientTool returns the definition of the tool name among the
// client's tools, or nil.
func clientTool(tools []tool.Definition, name string) *tool.Definition {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// newRequestID returns an id for a model request's audit record, which
// the records of the calls it made name as their parent.
func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// resolved is a call of the model's that the gateway answered itself.
type resolved struct {
	call    Call
	served  *ServedTool // nil: denied or unknown
	result  string
	isError bool
}

// mediator sits between a turn's passes and the client: it holds each
// call until it is whole, decides it, and continues the turn while the
// model's calls are all resolved here.
type mediator struct {
	t      *turn
	md     *mediation
	ctx    context.Context
	client func(Event) error // the client's emit
	front  API

	started bool
	// said are the kinds of text (EventReasoning, EventText) the client
	// got in earlier passes, and saidNow in this one: a pass's first
	// piece of a kind said before is set apart from it by a blank line.
	said, saidNow map[EventKind]bool
	next          int   // the client's next call index
	total         Usage // of the passes before this one
	failed        bool  // an error event was sent
	steps         int   // passes so far

	// This pass's state.
	col      *Collector
	pass     Usage
	finish   *Event
	held     []Event
	resolved []resolved
	allowed  int
}

func (t *turn) newMediator(ctx context.Context, emit func(Event) error) *mediator {
	m := &mediator{t: t, md: t.h.med, ctx: ctx, client: emit, front: t.s.front, total: unknownUsage(), said: map[EventKind]bool{}, saidNow: map[EventKind]bool{}}
	m.reset()
	return m
}

func (m *mediator) reset() {
	for k := range m.saidNow {
		m.said[k] = true
	}
	clear(m.saidNow)
	m.col, m.pass, m.finish, m.held, m.resolved, m.allowed = NewCollector(), unknownUsage(), nil, m.held[:0], nil, 0
	m.steps++
}

// emit takes one event of the pass, as the client would have had it.
func (m *mediator) emit(e Event) error {
	switch e.Kind {
	case EventStart:
		if err := m.col.Add(e); err != nil {
			return err
		}
		if m.started {
			return nil
		}
		m.started = true
		return m.client(e)
	case EventUsage:
		m.pass.merge(*e.Usage)
		u := addUsage(m.total, m.pass)
		return m.client(Event{Kind: EventUsage, Usage: &u})
	case EventFinish:
		if err := m.col.Add(e); err != nil {
			return err
		}
		m.finish = &e
		return nil
	case EventCall, EventArguments:
		m.held = append(m.held, e)
		return m.col.Add(e)
	case EventCallEnd:
		m.held = append(m.held, e)
		if err := m.col.Add(e); err != nil {
			return err
		}
		err := m.decide()
		m.held = m.held[:0]
		return err
	case EventError:
		m.failed = true
		return m.client(e)
	case EventWarning:
		return m.client(e)
	}
	if err := m.col.Add(e); err != nil {
		return err
	}
	if (e.Kind == EventReasoning || e.Kind == EventText) && e.Text != "" && !m.saidNow[e.Kind] {
		m.saidNow[e.Kind] = true
		if m.said[e.Kind] {
			e.Text = "\n\n" + e.Text
		}
	}
	return m.client(e)
}

// decide decides the call just closed.
func (m *mediator) decide() error {
	calls := m.col.Turn().Calls
	c := calls[len(calls)-1]
	who := m.t.s.who
	def := clientTool(m.t.s.clientTools, c.Name)
	served := m.md.served[c.Name]
	if served == nil {
		served = m.t.s.extraServed[c.Name]
	}
	if def != nil || served == nil {
		// The client's tool, or one that is nobody's.
		rr := &kernel.ReviewRequest{Principal: who.Principal, Call: tool.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments}, Parent: m.t.s.reqID}
		if def != nil {
			rr.Definition, rr.Safety = *def, m.md.safety(c.Name)
		} else {
			rr.Unknown = true
		}
		out, err := m.md.Kernel.Review(m.ctx, rr)
		if err != nil {
			return m.fail("the audit log cannot be written, so the model's tool call was not passed on")
		}
		if out.Status != kernel.StatusOK {
			m.resolved = append(m.resolved, resolved{call: c, result: out.Result.Text(), isError: true})
			m.warn("denied", fmt.Sprintf("the model's call %s to %s was not passed on (%s); the model was told", c.ID, c.Name, out.Status))
			return nil
		}
		m.allowed++
		for _, e := range m.held {
			e.Index = m.next
			if err := m.client(e); err != nil {
				return err
			}
		}
		m.next++
		return nil
	}
	m.resolved = append(m.resolved, resolved{call: c, served: served})
	return nil
}

// warn adds a warning to the request's x-toolgate-warnings.
func (m *mediator) warn(code, msg string) {
	m.t.warns = append(m.t.warns, tool.Warning{Code: "mediation-" + code, Message: msg})
}

// fail ends the turn with an error event.
func (m *mediator) fail(msg string) error {
	m.failed = true
	return m.client(Event{Kind: EventError, Err: &BackendError{Type: "api_error", Message: msg}})
}

// endPass decides, once a pass has ended well, whether the gateway goes
// on: it runs the served calls and reports true when the turn continues
// with their results. Otherwise it ends the client's turn.
func (m *mediator) endPass() (bool, error) {
	if m.failed {
		return false, nil
	}
	if len(m.resolved) == 0 || m.allowed > 0 {
		for _, r := range m.resolved {
			m.warn("dropped", fmt.Sprintf("the model's call %s to %s was dropped: the client's own calls end the turn", r.call.ID, r.call.Name))
		}
		return false, m.end()
	}
	if m.steps >= m.md.MaxToolSteps {
		return false, m.fail(fmt.Sprintf("the model was still calling tools the gateway answers after %d rounds (gateway.max_tool_steps); stopped", m.md.MaxToolSteps))
	}
	for i := range m.resolved {
		r := &m.resolved[i]
		if r.served == nil {
			continue
		}
		k := r.served.Kernel
		if k == nil {
			k = m.md.Kernel
		}
		out, err := k.Call(m.ctx, &kernel.Request{Principal: m.t.s.who.Principal,
			Call: tool.Call{ID: r.call.ID, Name: r.call.Name, Arguments: r.call.Arguments}, Parent: m.t.s.reqID})
		if err != nil {
			return false, m.fail("the audit log cannot be written, so the model's call to " + r.call.Name + " was not recorded")
		}
		r.result, r.isError = out.Result.Text(), out.Result.IsError
		sc := &ServerCall{ID: r.call.ID, Name: r.call.Name, Server: r.served.Source, Arguments: r.call.Arguments, Result: r.result, IsError: r.isError}
		if m.front == APIChat || m.front == APIGemini {
			api := "Chat Completions"
			if m.front == APIGemini {
				api = "Gemini"
			}
			m.warn("server-tool", fmt.Sprintf("the gateway ran the model's call %s to %s (%s) itself; %s has no block to show it", r.call.ID, r.call.Name, r.served.Source, api))
		}
		if err := m.client(Event{Kind: EventServerTool, Server: sc}); err != nil {
			return false, err
		}
	}
	return true, nil
}

// end sends the turn's finish.
func (m *mediator) end() error {
	e := Event{Kind: EventFinish, Finish: FinishStop}
	if m.finish != nil {
		e = *m.finish
	}
	if m.next > 0 {
		e.Finish = FinishToolCalls
	} else if e.Finish == FinishToolCalls {
		e.Finish = FinishStop
	}
	return m.client(e)
}

// nextRequest is r continued with this pass: the model's message and the
// results of its calls.
func (m *mediator) nextRequest(r *Request) *Request {
	tn := m.col.Turn()
	a := Message{Role: RoleAssistant}
	if tn.Reasoning != "" || tn.Signature != "" {
		a.Parts = append(a.Parts, Part{Kind: PartReasoning, Text: tn.Reasoning, Signature: tn.Signature, SignedBy: m.t.p.API})
	}
	for _, d := range tn.Redacted {
		a.Parts = append(a.Parts, Part{Kind: PartRedacted, Data: d, SignedBy: m.t.p.API})
	}
	if tn.Text != "" {
		a.Parts = append(a.Parts, Part{Kind: PartText, Text: tn.Text})
	}
	res := Message{Role: RoleTool}
	for _, rs := range m.resolved {
		a.Parts = append(a.Parts, Part{Kind: PartCall, CallID: rs.call.ID, Name: rs.call.Name, Arguments: argsOrEmpty(rs.call.Arguments)})
		res.Parts = append(res.Parts, Part{Kind: PartResult, CallID: rs.call.ID, Content: []Part{{Kind: PartText, Text: rs.result}}, IsError: rs.isError})
	}
	c := *r
	c.Messages = append(append(make([]Message, 0, len(r.Messages)+2), r.Messages...), a, res)
	return &c
}

// addUsage is the usage of two passes together: each known field summed.
func addUsage(a, b Usage) Usage {
	f := func(x, y int64) int64 {
		switch {
		case x < 0:
			return y
		case y < 0:
			return x
		}
		return x + y
	}
	return Usage{f(a.InputTokens, b.InputTokens), f(a.OutputTokens, b.OutputTokens), f(a.ReasoningTokens, b.ReasoningTokens),
		f(a.CacheReadTokens, b.CacheReadTokens), f(a.CacheWriteTokens, b.CacheWriteTokens)}
}

// runMediated answers with as many passes as the model's calls need:
// resp is the first pass's response.
func (t *turn) runMediated(ctx context.Context, resp *http.Response, emit func(Event) error, flush func() error) error {
	m := t.newMediator(ctx, emit)
	for {
		if err := t.runPass(ctx, resp, m.emit, flush); err != nil {
			return err
		}
		more, err := m.endPass()
		if err != nil || !more {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		next := m.nextRequest(t.req)
		out, err := t.h.encodeFor(next, t.p)
		if err != nil {
			return m.fail("the gateway could not continue the turn after its tool calls: " + err.Error())
		}
		t.h.endPass(t.s, t.p, &passAnswer{model: t.s.respModel, usage: m.pass, finish: FinishToolCalls}, nil)
		m.total = addUsage(m.total, m.pass)
		m.reset()
		pctx := t.h.passSpan(ctx, t.p, m.steps, t.s)
		r2, cancel, err := t.h.attempt(pctx, t.p, out, t.s)
		if err != nil {
			t.h.endPass(t.s, t.p, nil, err)
			if ctx.Err() != nil {
				return err
			}
			return m.fail("the model backend did not continue the turn after the gateway's tool calls: " + failureText(err))
		}
		defer cancel()
		defer r2.Body.Close()
		t.req, t.out, resp = next, out, r2
	}
}

// msgModelNotRecorded is the client's error when a model request's record
// cannot be committed: the answer is withheld.
const msgModelNotRecorded = "toolgate could not record this request in its audit log, so its answer is withheld; try again later"

// commitRequest commits the model record of the request s, as it stands
// once the answer is complete, before the answer's end goes to the client
// (the body, or the stream's final event): a model request is recorded
// before the gateway finishes it, as a call's outcome is before its result
// is returned. It reports false when the record could not be committed;
// the caller then ends the request with its API's error.
func (h *Handler) commitRequest(ctx context.Context, s *served) bool {
	if s.reqID == "" || h.cfg.Audit == nil || s.audited {
		return true
	}
	rec := h.requestRecord(s)
	if err := h.cfg.Audit.Commit(ctx, &rec); err != nil {
		if h.cfg.Logger != nil {
			h.cfg.Logger.Error("gateway: the model request's audit record could not be committed; its answer is withheld", "request", s.reqID, "error", err)
		}
		return false
	}
	s.audited = true
	return true
}

// auditRequest records the request s as a model record of the audit log,
// unless commitRequest did: a request that ended before its answer was
// complete (refused, failed), queued.
func (h *Handler) auditRequest(s *served) {
	if s.audited {
		return
	}
	rec := h.requestRecord(s)
	if err := h.cfg.Audit.Append(context.Background(), &rec); err != nil && h.cfg.Logger != nil {
		h.cfg.Logger.Error("gateway: the model request's audit record could not be written", "request", s.reqID, "error", err)
	}
}

// requestRecord is the model record of the request s: who (principal
// and key), which model, the provider and front door, the outcome, the
// usage and its cost, the latency, the calls the model made (names and
// argument hashes) and — only with [Config.CaptureContent], redacted — the
// conversation. Result is a JSON object built by appending, as the record
// is made on every request:
//
//	{"front","provider","key_id","status","finish","latency_ms",
//	 "input_tokens","cached_input_tokens","cache_write_tokens",
//	 "output_tokens","reasoning_tokens","cost_usd",
//	 "calls":[{"name","args_sha256","server"}],"content":{"request","answer"}}
//
// A token count the backend did not report is left out, cost_usd too
// when the model has no price, and calls when the model made none.
func (h *Handler) requestRecord(s *served) kernel.AuditRecord {
	rec := kernel.AuditRecord{Time: s.start, Kind: kernel.RecordModel, Principal: s.who.Principal.ID, Tool: s.model, CallID: s.reqID, Status: kernel.StatusOK}
	if s.err != nil || s.reported || s.status != http.StatusOK {
		rec.Status, rec.IsError = kernel.StatusExecutorError, true
		rec.Reason = "status " + strconv.Itoa(s.status)
		if s.err != nil {
			rec.Reason += ": " + failureText(s.err)
		}
	}
	b := make([]byte, 0, 256)
	b = jsonStr(append(b, `{"front":`...), string(s.front))
	b = jsonStr(append(b, `,"provider":`...), s.provider)
	if s.who.KeyID != "" {
		b = jsonStr(append(b, `,"key_id":`...), s.who.KeyID)
	}
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(s.status), 10)
	b = jsonStr(append(b, `,"finish":`...), string(s.finish))
	b = append(b, `,"latency_ms":`...)
	b = strconv.AppendInt(b, h.cfg.Now().Sub(s.start).Milliseconds(), 10)
	u := s.usage
	for _, c := range [...]struct {
		name string
		n    int64
	}{{`,"input_tokens":`, u.InputTokens}, {`,"cached_input_tokens":`, u.CacheReadTokens}, {`,"cache_write_tokens":`, u.CacheWriteTokens},
		{`,"output_tokens":`, u.OutputTokens}, {`,"reasoning_tokens":`, u.ReasoningTokens}} {
		if c.n >= 0 {
			b = strconv.AppendInt(append(b, c.name...), c.n, 10)
		}
	}
	if price, ok := h.price(s); ok {
		su := server.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens}
		b = strconv.AppendFloat(append(b, `,"cost_usd":`...), price.Cost(&su), 'g', -1, 64)
	}
	if len(s.calls.list) > 0 {
		b = append(b, `,"calls":[`...)
		for i, c := range s.calls.list {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonStr(append(b, `{"name":`...), c.name)
			b = append(b, `,"args_sha256":"`...)
			b = hex.AppendEncode(b, c.sum[:])
			b = append(b, '"')
			if c.server {
				b = append(b, `,"server":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if h.cfg.CaptureContent {
		b = jsonStr(append(b, `,"content":{"request":`...), h.redactContent(s, s.body))
		b = jsonStr(append(b, `,"answer":`...), h.redactContent(s, s.answer))
		b = append(b, '}')
	}
	rec.Result = string(append(b, '}'))
	return rec
}

// price is the price of the request s: its public model's, else its
// provider's; ok is false when it has neither (or no provider).
func (h *Handler) price(s *served) (Price, bool) {
	if s.provider == "" || len(h.cfg.Prices) == 0 {
		return Price{}, false
	}
	if s.known {
		if p, ok := h.cfg.Prices[s.model]; ok {
			return p, true
		}
	}
	p, ok := h.cfg.Prices[s.provider]
	return p, ok
}

// redactContent is content of the request s as its model record keeps
// it: every configured provider key masked, then every secret the
// redact package finds.
func (h *Handler) redactContent(s *served, content []byte) string {
	t := string(content)
	if p := h.providers[s.provider]; p != nil {
		t = p.masker().String(t)
	} else {
		for _, p := range h.providers {
			t = p.masker().String(t)
			break // each provider's masker masks every configured key
		}
	}
	return h.content.String(t)
}

// note keeps what the model record of s needs of the client's event e:
// the calls the model made and, with [Config.CaptureContent], the
// answer's text. Nothing is kept for a request that is not audited.
func (h *Handler) note(s *served, e *Event) {
	if s.reqID == "" || h.cfg.Audit == nil {
		return
	}
	switch e.Kind {
	case EventText:
		if h.cfg.CaptureContent {
			s.answer = append(s.answer, e.Text...)
		}
	case EventCall:
		s.calls.open(e.Name)
	case EventArguments:
		s.calls.write(e.Text)
	case EventCallEnd:
		s.calls.close()
	case EventServerTool:
		s.calls.open(e.Server.Name)
		s.calls.write(string(e.Server.Arguments))
		s.calls.close()
		s.calls.list[len(s.calls.list)-1].server = true
	}
}

// noteCall notes c, a call of a whole answer, as note notes its events.
func (h *Handler) noteCall(s *served, c *Call) {
	if s.reqID == "" || h.cfg.Audit == nil {
		return
	}
	s.calls.open(c.Name)
	s.calls.write(string(c.Arguments))
	s.calls.close()
}

// callNote is a call the model made, for its model record: its name and
// the first 8 bytes (16 hex digits) of the SHA-256 of its arguments'
// compact bytes — the JSON as the client got it without the whitespace
// between tokens, so that a reformatted copy of the same arguments has
// the same hash. server is set for a call the gateway ran itself.
type callNote struct {
	name   string
	sum    [8]byte
	server bool
}

// callNotes hashes the arguments of the open call as they stream, without
// keeping them.
type callNotes struct {
	list       []callNote
	h          hash.Hash // the open call's, else nil
	inStr, esc bool
}

func (c *callNotes) open(name string) {
	c.list = append(c.list, callNote{name: name})
	if c.h == nil {
		c.h = sha256.New()
	}
	c.h.Reset()
	c.inStr, c.esc = false, false
}

// write hashes a piece of the open call's arguments, dropping the
// whitespace outside strings.
func (c *callNotes) write(p string) {
	if c.h == nil || len(c.list) == 0 {
		return
	}
	run := 0
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case c.inStr:
			switch {
			case c.esc:
				c.esc = false
			case ch == '\\':
				c.esc = true
			case ch == '"':
				c.inStr = false
			}
		case ch == '"':
			c.inStr = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			io.WriteString(c.h, p[run:i])
			run = i + 1
		}
	}
	io.WriteString(c.h, p[run:])
}

func (c *callNotes) close() {
	if c.h == nil || len(c.list) == 0 {
		return
	}
	var sum [sha256.Size]byte
	copy(c.list[len(c.list)-1].sum[:], c.h.Sum(sum[:0]))
}
