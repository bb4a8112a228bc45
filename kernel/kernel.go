// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
	"go.opentelemetry.io/otel/trace"
)

// Config configures a [Kernel]. Every field is optional.
type Config struct {
	// Registry holds the tools. If nil, an empty registry; add tools with
	// [Kernel.Registry].
	Registry *Registry
	// Principals is the directory of known principals. When it is
	// non-empty a caller is known only if its ID is listed, and the
	// listed roles and attributes are used, not the caller's. When empty,
	// every principal with a non-empty ID is known as given.
	Principals []Principal
	// Policy decides calls. If nil, the built-in rules only.
	Policy *Policy
	// Limits are the rate limits per safety class.
	Limits RateLimits
	// Limiter counts calls. If nil, in memory.
	Limiter Limiter
	// Grants issues the per-call token. If nil, a random key.
	Grants *Grants
	// Firewall shapes results. If nil, the defaults.
	Firewall *Firewall
	// Audit receives the records of every call: an intent committed
	// before the executor runs and an outcome committed before Call
	// returns, or one record for a call that never reached the executor.
	// If nil, calls are not logged.
	Audit *AuditLog
	// TracerProvider, when set, traces every call: an execute_tool span
	// (OpenTelemetry GenAI conventions) with the decision, rule, code and
	// status, a child of the caller's span in ctx.
	TracerProvider trace.TracerProvider
	// TraceContent adds the call's arguments and result, redacted, to
	// its span.
	TraceContent bool
	// Observe, when set, is told of every call once it is done (after
	// its audit record is queued), with the arguments and result as
	// redacted for the audit log. It runs on the caller's goroutine: it
	// must be quick and must not block. ctx is the call's: it carries the
	// caller's identity and span for observers that record them.
	Observe func(ctx context.Context, o Observation)
	// Approve decides calls that need approval. If nil, such calls are
	// denied with a reason saying approval is required.
	Approve func(ctx context.Context, req *ApprovalRequest) (bool, error)
	// Before hooks run in order before policy; After hooks in order after
	// the executor.
	Before []BeforeHook
	After  []AfterHook
	// Timeout bounds each call. If zero, [DefaultTimeout]; negative
	// means none.
	Timeout time.Duration
	// MaxArgBytes bounds the size of a call's arguments. If zero,
	// [DefaultMaxArgBytes]; negative means no limit.
	MaxArgBytes int
	// MaxArgDepth bounds the nesting of a call's arguments. If zero,
	// [DefaultMaxArgDepth]; negative means no limit.
	MaxArgDepth int
	// Concurrency bounds the calls [Kernel.CallBatch] runs at once. If
	// zero, [DefaultConcurrency]; negative means no limit: every call of
	// a batch at once.
	Concurrency int
}

// The defaults of [Config]'s limits, used when a field is zero.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMaxArgBytes = 1 << 20
	DefaultMaxArgDepth = 64
	DefaultConcurrency = 8
)

// ApprovalRequest is what an approval hook sees.
type ApprovalRequest struct {
	Principal     Principal
	Capability    Capability
	Call          tool.Call
	Justification string
	Decision      Decision
}

// HookCall is what hooks see and may change.
type HookCall struct {
	Principal  Principal
	Capability Capability
	// Call may be changed by before hooks; changed arguments are checked
	// again.
	Call tool.Call
	// Justification may be set by before hooks.
	Justification string
}

// BeforeHook runs before policy. It may change hc.Call.Arguments or
// hc.Justification; an error aborts the call with a tool error.
type BeforeHook func(ctx context.Context, hc *HookCall) error

// AfterHook runs after the executor, before the firewall. It may replace
// *res; an error replaces the result with a tool error.
type AfterHook func(ctx context.Context, hc *HookCall, res *tool.Result) error

// Kernel runs tool calls through decoding, policy, grants, validation,
// the executor, the firewall and the audit log. It is safe for concurrent
// use.
type Kernel struct {
	reg      *Registry
	dir      map[string]*Principal
	policy   *Policy
	limits   RateLimits
	limiter  Limiter
	grants   *Grants
	fw       *Firewall
	audit    *AuditLog
	approve  func(ctx context.Context, req *ApprovalRequest) (bool, error)
	before   []BeforeHook
	after    []AfterHook
	timeout  time.Duration // negative: none
	argOpts  strictjson.Options
	parallel int // negative: no limit

	red atomic.Pointer[kernelRedactor] // see [Kernel.redactor]

	tracer       trace.Tracer // nil without tracing
	traceContent bool
	observe      func(context.Context, Observation)
}

// New returns a kernel for cfg; nil means the defaults.
func New(cfg *Config) (*Kernel, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	k := &Kernel{
		traceContent: c.TraceContent, observe: c.Observe,
		reg: c.Registry, policy: c.Policy, limits: c.Limits.withDefaults(), limiter: c.Limiter,
		grants: c.Grants, fw: c.Firewall, audit: c.Audit, approve: c.Approve,
		before: append([]BeforeHook(nil), c.Before...), after: append([]AfterHook(nil), c.After...),
		timeout: orDefault(c.Timeout, DefaultTimeout), parallel: orDefault(c.Concurrency, DefaultConcurrency),
		argOpts: strictjson.Options{MaxBytes: orDefault(c.MaxArgBytes, DefaultMaxArgBytes), MaxDepth: orDefault(c.MaxArgDepth, DefaultMaxArgDepth)},
	}
	if c.TracerProvider != nil {
		k.tracer = c.TracerProvider.Tracer("github.com/toolgate/toolgate/kernel")
	}
	if k.reg == nil {
		k.reg = NewRegistry()
	}
	if len(c.Principals) > 0 {
		k.dir = make(map[string]*Principal, len(c.Principals))
		for i := range c.Principals {
			p := c.Principals[i]
			if p.ID == "" {
				return nil, errors.New("kernel: principal with empty id")
			}
			if _, dup := k.dir[p.ID]; dup {
				return nil, fmt.Errorf("kernel: principal %q listed twice", p.ID)
			}
			k.dir[p.ID] = &p
		}
	}
	if k.policy == nil {
		var err error
		if k.policy, err = NewPolicy(nil); err != nil {
			return nil, err
		}
	}
	if k.limiter == nil {
		k.limiter = NewMemoryLimiter()
	}
	if k.grants == nil {
		var err error
		if k.grants, err = NewGrants(nil); err != nil {
			return nil, err
		}
	}
	if k.fw == nil {
		k.fw = NewFirewall(nil)
	}
	return k, nil
}

// Registry returns the kernel's registry.
func (k *Kernel) Registry() *Registry { return k.reg }

// Grants returns the kernel's grant issuer.
func (k *Kernel) Grants() *Grants { return k.grants }

// Firewall returns the kernel's firewall.
func (k *Kernel) Firewall() *Firewall { return k.fw }

// Request is one call to run.
type Request struct {
	Principal Principal
	Call      tool.Call
	// Justification says why, for a call whose arguments carry no
	// "_justification"; a before hook may also set one.
	Justification string
	// Mode shapes the result; ModeRaw needs the admin role.
	Mode Mode
	// Explain lists every failed policy condition in the decision.
	Explain bool
	// Parent is the CallID of the record the call's audit record belongs
	// under: the model request that made it, for a call through the
	// gateway.
	Parent string

	proposed bool // a Review's, for its observation
}

// Outcome is how a call ended.
type Outcome struct {
	// Result goes back to the model: the tool's output after the
	// firewall, or a tool error saying what went wrong.
	Result   tool.Result
	Status   Status
	Decision Decision
}

type grantKey struct{}

// GrantFromContext returns the grant token of the call an executor is
// running, for executors that pass it on to a remote service that shares
// the grant key.
func GrantFromContext(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(grantKey{}).(string)
	return t, ok
}

// Call runs req through the pipeline. Every failure of the call — unknown
// tool, bad JSON, denial, invalid arguments, executor or hook failure — is
// an [Outcome] whose Result is a tool error the model can act on. The
// error is non-nil only when the kernel itself cannot work: the audit log
// cannot be written.
//
// Everything that leaves the kernel goes through one redactor: the
// firewall's, masking also the credentials registered with the
// capabilities ([Capability.Secrets], [SecretHolder]). That covers the
// result with its notes, the result's name and call id, the decision's
// reasons, error messages, and every column of the audit record.
func (k *Kernel) Call(ctx context.Context, req *Request) (Outcome, error) {
	var start time.Time
	if k.observe != nil {
		start = time.Now()
	}
	var span trace.Span
	if k.tracer != nil {
		ctx, span = k.startSpan(ctx)
	}
	red := k.redactor()
	var ca callAudit
	out, rec := k.call(ctx, req, red, &ca)
	// A model may put a secret anywhere, the tool name and call id
	// included; what it sent is not echoed unmasked.
	memo := k.red.Load()
	out.Result.CallID = red.String(req.Call.ID)
	out.Result.Name = memo.masked(red, req.Call.Name)
	out.Decision = k.redactDecision(red, out.Decision)
	if span != nil {
		defer k.endSpan(span, req, &out, red)
	}
	if k.observe != nil {
		defer k.observeCall(ctx, req, &out, red, start)
	}
	if ca.err != nil {
		// Its intent could not be written: nothing ran, nothing more to
		// record.
		return out, fmt.Errorf("%w: %w", ErrAuditUnavailable, ca.err)
	}
	if k.audit != nil && ca.intent {
		// out, not a new variable: the deferred observers read it.
		var err error
		out, err = k.commitOutcome(ctx, req, &ca, out, &rec, red)
		return out, err
	}
	if k.audit != nil {
		if rec.Time.IsZero() { // the call ended before its executor ran
			rec.Time = time.Now()
		}
		rec.Principal = memo.masked(red, req.Principal.ID)
		rec.Parent = red.String(req.Parent)
		rec.Tool = out.Result.Name
		rec.CallID = out.Result.CallID
		rec.Status = out.Status
		rec.Effect, rec.Rule, rec.Code = out.Decision.Effect, out.Decision.Rule, out.Decision.Code
		rec.Reason = out.Decision.Reason // an approver's error may quote anything
		rec.Justification = red.String(rec.Justification)
		// Decoded strictly (or nil). Append copies it: the writer hashes it
		// later, and the caller may reuse the request's buffer once Call
		// returns.
		rec.Args = red.CheckedJSON(rec.Args)
		// The parts were masked by the firewall; joined, a secret may
		// span two of them.
		rec.Result = red.String(resultText(&out.Result))
		rec.IsError = out.Result.IsError
		if err := k.audit.Append(ctx, &rec); err != nil {
			return out, err
		}
	}
	return out, nil
}

// resultText is the result as the audit log stores it; it has already
// been through the firewall.
func resultText(r *tool.Result) string {
	if len(r.Content) == 1 {
		switch c := r.Content[0].(type) {
		case *tool.Text:
			return c.Text
		case *tool.JSON:
			return string(c.Value)
		}
	}
	return r.Text()
}

// redactDecision returns d with its reasons masked. Rule names and
// reasons come from the policy, but an approver's error or a rule's
// reason may quote anything.
func (k *Kernel) redactDecision(red *redact.Redactor, d Decision) Decision {
	c := k.red.Load()
	d.Rule = c.masked(red, d.Rule)
	d.Reason = c.masked(red, d.Reason)
	cloned := false
	for i, f := range d.Failed {
		r, why := c.masked(red, f.Rule), c.masked(red, f.Reason)
		if r == f.Rule && why == f.Reason {
			continue
		}
		if !cloned {
			d.Failed, cloned = slices.Clone(d.Failed), true
		}
		d.Failed[i].Rule, d.Failed[i].Reason = r, why
	}
	return d
}

// redactor returns the redactor for everything the kernel returns and
// logs: the firewall's, plus every credential registered with the
// registry's capabilities. It is rebuilt only when one was added.
func (k *Kernel) redactor() *redact.Redactor {
	gen := k.reg.secretsGen.Load()
	if c := k.red.Load(); c != nil && c.gen == gen {
		return c.r
	}
	values, gen := k.reg.secretValues()
	c := &kernelRedactor{gen: gen, r: k.fw.red}
	if len(values) > 0 {
		c.r = k.fw.red.WithValues(values...)
	}
	k.red.Store(c)
	return c.r
}

// kernelRedactor is the redactor built for one generation of the
// registry's secrets, with a memo of the decision strings it masked.
type kernelRedactor struct {
	gen uint64
	r   *redact.Redactor
	// memo holds decision rules and reasons, tool names and principals
	// with their masked forms. These repeat a few strings (rule names,
	// fixed reasons, the registry's tools), and scanning them on every
	// call was an eighth of a call's time. It is copied on write and
	// bounded (memoMax strings of at most memoLen bytes), so strings that
	// embed a caller's input cannot grow it; a full memo masks as before.
	memo atomic.Pointer[[]memoEntry]
}

type memoEntry struct{ in, out string }

const (
	memoMax = 64
	memoLen = 256
)

// masked returns red.String(s), from the memo when s was seen. c is nil
// before the first call builds the redactor's entry; red is then used as
// is.
func (c *kernelRedactor) masked(red *redact.Redactor, s string) string {
	if s == "" {
		return s
	}
	if c == nil || c.r != red || len(s) > memoLen {
		return red.String(s)
	}
	old := c.memo.Load()
	if old != nil {
		for _, e := range *old {
			if e.in == s {
				return e.out
			}
		}
	}
	m := red.String(s)
	if old == nil || len(*old) < memoMax {
		var next []memoEntry
		if old != nil {
			next = append(make([]memoEntry, 0, len(*old)+1), *old...)
		}
		next = append(next, memoEntry{strings.Clone(s), m})
		c.memo.CompareAndSwap(old, &next) // a lost race only skips this entry
	}
	return m
}

func (k *Kernel) fail(red *redact.Redactor, st Status, d Decision, msg string) Outcome {
	return Outcome{Status: st, Decision: d, Result: tool.Result{Content: []tool.Content{&tool.Text{Text: red.String(msg)}}, IsError: true}}
}

func (k *Kernel) call(ctx context.Context, req *Request, red *redact.Redactor, ca *callAudit) (Outcome, AuditRecord) {
	var rec AuditRecord
	e := k.reg.entry(req.Call.Name)
	if e == nil {
		return k.fail(red, StatusUnknownTool, Decision{}, k.unknownTool(red, req.Call.Name)), rec
	}
	pr, known := k.principal(&req.Principal)
	// The rate limit comes first, before the arguments are even read:
	// every call of a known tool counts, whatever becomes of it, so that
	// a caller sending invalid or denied calls is held to the limit too,
	// and what it can make the kernel do and log with them.
	if ok, retry, err := k.limiter.Allow(ctx, pr.ID, e.cap.Definition.Name, k.limits.of(e.cap.Safety), k.limits.Window); err != nil || !ok {
		d := Decision{Effect: EffectDeny, Rule: RuleRateLimit, Code: CodeRateLimited}
		if err != nil {
			d.Reason = "the rate limiter is unavailable; try again later"
		} else {
			d.Reason = fmt.Sprintf("rate limit of %d calls per %s reached for this tool; retry in %s", k.limits.of(e.cap.Safety), k.limits.Window, retry.Round(time.Second))
		}
		return k.fail(red, StatusDenied, d, denialText(&d)), rec
	}
	args, just, err := DecodeArguments(req.Call.Arguments, &k.argOpts)
	if err != nil {
		return k.fail(red, StatusInvalidJSON, Decision{}, "invalid arguments: "+argMessage(red, err)+"; send one JSON object"), rec
	}
	rec.Args = args
	if just == "" {
		just = req.Justification
	}
	rec.Justification = just

	call := req.Call
	call.Arguments = args
	var hc *HookCall
	if len(k.before) > 0 || len(k.after) > 0 {
		hc = &HookCall{Principal: *pr, Capability: e.cap, Call: call, Justification: just}
	}
	if len(k.before) > 0 {
		for _, h := range k.before {
			if err := safeHook(func() error { return h(ctx, hc) }); err != nil {
				return k.fail(red, StatusHookError, Decision{}, "call aborted by a hook: "+err.Error()), rec
			}
		}
		if string(hc.Call.Arguments) != string(call.Arguments) {
			a, j, err := DecodeArguments(hc.Call.Arguments, &k.argOpts)
			if err != nil {
				return k.fail(red, StatusHookError, Decision{}, "a hook produced invalid arguments: "+argMessage(red, err)), rec
			}
			if j != "" && hc.Justification == just {
				hc.Justification = j
			}
			call.Arguments = a
			rec.Args = a
		}
		just = hc.Justification
		rec.Justification = just
	}

	// Validation comes before policy so that policy conditions over the
	// arguments ("args.amount < 1000") see values of the declared types.
	if e.schema != nil {
		if err := e.schema.Validate(call.Arguments); err != nil {
			return k.fail(red, StatusInvalidArguments, Decision{}, validationText(red, err)), rec
		}
	}
	in := Input{Principal: pr, Known: known, Capability: &e.cap, Args: call.Arguments, Justification: just}
	d := k.policy.Decide(&in, req.Explain)
	switch d.Effect {
	case EffectDeny:
		return k.fail(red, StatusDenied, d, denialText(&d)), rec
	case EffectRequireApproval:
		if k.approve == nil {
			d.Effect, d.Code = EffectDeny, CodeApprovalRequired
			d.Reason = "approval required, and no approver is configured: " + d.Reason
			return k.fail(red, StatusDenied, d, denialText(&d)), rec
		}
		ok, err := k.approve(ctx, &ApprovalRequest{Principal: *pr, Capability: e.cap, Call: call, Justification: just, Decision: d})
		if err != nil || !ok {
			d.Effect, d.Code = EffectDeny, CodeApprovalDenied
			if err != nil {
				d.Reason = red.String("approval could not be obtained: " + err.Error())
			} else {
				d.Reason = "the approver declined this call"
			}
			return k.fail(red, StatusDenied, d, denialText(&d)), rec
		}
		d.Effect, d.Code, d.Reason = EffectAllow, CodeAllowed, "allowed after approval"
	}
	// The grant binds the decision to these exact argument bytes; it is
	// verified immediately before the executor runs. call.Arguments does
	// not change between here and the executor, so one hash of them serves
	// both the grant and its check. The clock is read once for the grant's
	// expiry and the call's deadline.
	sum := sha256.Sum256(call.Arguments)
	start := time.Now()
	var grantBuf [256]byte
	payload, mac := k.grants.issueRaw(grantBuf[:0], pr.ID, e.cap.Definition.Name, &sum, start)
	if k.tracer != nil {
		traceGrant(ctx, payload)
	}

	if err := k.grants.checkRaw(payload, &mac, pr.ID, e.cap.Definition.Name, &sum); err != nil {
		return k.fail(red, StatusGrantError, d, "the call's grant did not verify: "+err.Error()), rec
	}
	if k.audit != nil {
		// Write-ahead: nothing runs unrecorded.
		if out, ok := k.commitIntent(ctx, req, red, ca, d, &rec, start, payload); !ok {
			return out, rec
		}
	}

	var token []byte
	if e.cap.PassGrant {
		token = encodeToken(nil, payload, mac[:])
	}
	res, end, err := k.execute(ctx, e, call, token, start)
	rec.Time = end
	if err != nil {
		return k.fail(red, StatusExecutorError, d, "the tool could not run: "+err.Error()), rec
	}
	if len(k.after) > 0 {
		if res, err = k.runAfter(ctx, hc, res); err != nil {
			return k.fail(red, StatusHookError, d, "a hook rejected the result: "+err.Error()), rec
		}
	}
	var fields *fieldTree
	if d.Restricted {
		fields = e.project
		if fields == nil {
			fields = &fieldTree{} // nothing allowed
		}
	}
	mode := req.Mode
	var rawNote bool
	if mode == ModeRaw && !pr.HasRole("admin") {
		mode, rawNote = ModeDefault, true
	}
	res = k.fw.apply(res, fields, mode, red)
	if rawNote {
		res.Content = append(res.Content, &tool.Text{Text: "[toolgate: raw mode needs the admin role; shown in the default mode]"})
	}
	st := StatusOK
	if res.IsError {
		st = StatusToolError
	}
	return Outcome{Result: res, Status: st, Decision: d}, rec
}

// execute runs the executor with the call's timeout, turning a panic into
// an error. It returns the time the executor returned, which the audit
// record keeps, so that a call reads the clock once before the executor
// (wall and monotonic) and once after (monotonic).
func (k *Kernel) execute(ctx context.Context, e *entry, call tool.Call, token []byte, start time.Time) (res tool.Result, end time.Time, err error) {
	timeout := k.timeout
	if e.cap.Timeout != 0 {
		timeout = e.cap.Timeout
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = start.Add(timeout)
		if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
			deadline = time.Time{} // the caller's earlier deadline governs
		}
	}
	parent := ctx
	var cc *callContext
	if !deadline.IsZero() || e.cap.PassGrant {
		cc = &callContext{Context: ctx, deadline: deadline}
		if e.cap.PassGrant {
			cc.token, cc.hasToken = string(token), true
		}
		ctx = cc
		defer cc.release()
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("executor panicked: %v", p) // p is a value, not an error to wrap
		}
	}()
	res, err = e.cap.Executor.Execute(ctx, call)
	// The monotonic clock alone: start carries the wall time, and
	// time.Since reads half of what time.Now does.
	end = start.Add(time.Since(start))
	// A result that arrives after the deadline is discarded, whether or
	// not a timer fired.
	if err == nil && (cc != nil && cc.expired(end) || errors.Is(parent.Err(), context.DeadlineExceeded)) {
		err = context.DeadlineExceeded
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %s", timeout)
	}
	return res, end, err
}

// runAfter runs the after hooks over res. It is apart from call so that
// only calls with hooks pay for the result escaping to them.
func (k *Kernel) runAfter(ctx context.Context, hc *HookCall, res tool.Result) (tool.Result, error) {
	for _, h := range k.after {
		if err := safeHook(func() error { return h(ctx, hc, &res) }); err != nil {
			return res, err
		}
	}
	return res, nil
}

func safeHook(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("hook panicked: %v", p)
		}
	}()
	return f()
}

func (k *Kernel) principal(p *Principal) (*Principal, bool) {
	if k.dir == nil {
		return p, p.ID != ""
	}
	if d, ok := k.dir[p.ID]; ok {
		return d, true
	}
	return p, false
}

func (k *Kernel) unknownTool(red *redact.Redactor, name string) string {
	k.reg.mu.RLock()
	names := append([]string(nil), k.reg.names...)
	k.reg.mu.RUnlock()
	// Suggest the closest names first.
	sort.SliceStable(names, func(i, j int) bool { return distance(names[i], name) < distance(names[j], name) })
	if len(names) > 10 {
		names = names[:10]
	}
	shown := red.String(name) // before it is cut, which could hide a secret's tail from the redactor
	if len(shown) > 64 {
		shown = truncateUTF8(shown, 64) + "…"
	}
	msg := fmt.Sprintf("unknown tool %q", shown)
	if len(names) > 0 {
		msg += "; available tools: " + strings.Join(names, ", ")
	}
	return msg
}

// distance is a cheap similarity: the length of the common prefix,
// negated, then the length difference.
func distance(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	d := len(a) - len(b)
	if d < 0 {
		d = -d
	}
	return -n*100 + d
}

func denialText(d *Decision) string {
	var b strings.Builder
	b.WriteString("call denied (")
	b.WriteString(string(d.Code))
	b.WriteString(", rule ")
	b.WriteString(d.Rule)
	b.WriteString("): ")
	b.WriteString(d.Reason)
	for _, f := range d.Failed {
		if f.Rule == d.Rule && f.Reason == d.Reason {
			continue
		}
		b.WriteString("; also ")
		b.WriteString(string(f.Code))
		b.WriteString(" (rule ")
		b.WriteString(f.Rule)
		b.WriteString("): ")
		b.WriteString(f.Reason)
	}
	return b.String()
}

// argMessage is the public message of an error from [DecodeArguments].
// A strictjson error names members, which a model may have made secrets:
// its pointer is masked token by token, and a duplicate name unquoted and
// masked, since escapes ("~1" for '/', "\n") hide a secret's shape from
// the redactor.
func argMessage(red *redact.Redactor, err error) string {
	if se, ok := errors.AsType[*strictjson.Error](err); ok {
		c := *se
		c.Pointer = redactPointer(red, c.Pointer)
		if errors.Is(c.Err, strictjson.ErrDuplicateName) {
			if name, err := strconv.Unquote(c.Detail); err == nil {
				c.Detail = strconv.Quote(red.String(name))
			}
		}
		return c.Error()
	}
	if ae, ok := errors.AsType[*ArgumentsError](err); ok {
		return ae.Msg
	}
	return "the arguments could not be read"
}

// redactPointer masks each reference token of the JSON Pointer p.
func redactPointer(red *redact.Redactor, p string) string {
	if p == "" {
		return p
	}
	toks := strings.Split(p[1:], "/")
	changed := false
	for i, t := range toks {
		raw := strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		if m := red.String(raw); m != raw {
			toks[i], changed = strictjson.EscapePointer(m), true
		}
	}
	if !changed {
		return p
	}
	return "/" + strings.Join(toks, "/")
}

func validationText(red *redact.Redactor, err error) string {
	var b strings.Builder
	b.WriteString("invalid arguments")
	if ve, ok := errors.AsType[*schema.ValidationError](err); ok {
		// Sorted by pointer so that the message is stable.
		errs := slices.Clone(ve.Errors)
		slices.SortStableFunc(errs, func(a, b *schema.ArgError) int { return strings.Compare(a.Pointer, b.Pointer) })
		for i, a := range errs {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString("; ")
			}
			p := redactPointer(red, a.Pointer)
			if p == "" {
				p = "/"
			}
			b.WriteString("at " + p + ": " + a.Expected)
		}
	} else {
		b.WriteString(": " + err.Error())
	}
	b.WriteString("; fix the arguments and call again")
	return b.String()
}
