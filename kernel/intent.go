// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/tool"
)

// ErrAuditUnavailable is matched by the error of [Kernel.Call] when the
// call's intent could not be written to the audit log: the tool did not
// run.
var ErrAuditUnavailable = errors.New("kernel: the audit log cannot be written; the call did not run")

// ErrOutcomeNotRecorded is matched by the error of [Kernel.Call] when the
// tool ran but its outcome could not be written to the audit log: the
// result is withheld, the outcome record stays queued, and the intent is
// in the log.
var ErrOutcomeNotRecorded = errors.New("kernel: the call ran, but its outcome could not be recorded")

// The public messages of the two audit failures. The second must not
// invite a retry: the tool's side effects happened.
const (
	msgIntentNotRecorded  = "the audit log cannot be written, so no tool may run; nothing was done"
	msgOutcomeNotRecorded = "the tool ran, but its outcome could not be recorded in the audit log, so its result is withheld; do not assume it failed"
)

// callAudit is what [Kernel.call] tells [Kernel.Call] about the audit
// records of the call.
type callAudit struct {
	// err: the intent could not be written, and nothing ran.
	err error
	// intent: an intent was committed (or its commit abandoned when the
	// caller's context ended), so the call's second record is an outcome.
	intent bool
	// ran: the executor was started; its outcome is committed before the
	// result is returned.
	ran bool
}

// commitIntent commits the intent record of an allowed call about to run.
// It reports false with the outcome to return when the call must not run:
// the log cannot be written, or ctx ended while waiting (the intent may
// still be written, so the call's outcome says it did not run).
func (k *Kernel) commitIntent(ctx context.Context, req *Request, red *redact.Redactor, ca *callAudit, d Decision,
	rec *AuditRecord, start time.Time, grant []byte) (Outcome, bool) {
	memo := k.red.Load()
	dd := k.redactDecision(red, d)
	intent := AuditRecord{
		Kind:          RecordIntent,
		Time:          start,
		Principal:     memo.masked(red, req.Principal.ID),
		Tool:          memo.masked(red, req.Call.Name),
		CallID:        red.String(req.Call.ID),
		Parent:        red.String(req.Parent),
		Effect:        dd.Effect, // no Status: the call has not ended
		Rule:          dd.Rule,
		Code:          dd.Code,
		Reason:        dd.Reason,
		Justification: red.String(rec.Justification),
		Args:          red.CheckedJSON(rec.Args),
		Grant:         grantID(grant),
	}
	late, err := k.commit(ctx, &intent)
	if err == nil {
		ca.intent, ca.ran = true, true
		return Outcome{}, true
	}
	if late && k.audit.Err() == nil {
		// The intent may still be written: an outcome will say the call
		// did not run.
		ca.intent = true
		if ctx.Err() != nil {
			return k.fail(red, StatusExecutorError, d, "the call was cancelled before it ran"), false
		}
		return k.fail(red, StatusAuditError, d, "the audit log did not answer within the call's timeout, so the tool did not run"), false
	}
	ca.err = err
	return k.fail(red, StatusAuditError, d, msgIntentNotRecorded), false
}

// commitOutcome writes the outcome record of a call whose intent was
// committed: committed before the result is returned when the tool ran,
// queued when it did not. out and rec are as [Kernel.call] returned them,
// out already redacted.
func (k *Kernel) commitOutcome(ctx context.Context, req *Request, ca *callAudit, out Outcome, rec *AuditRecord, red *redact.Redactor) (Outcome, error) {
	memo := k.red.Load()
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	// The intent holds the arguments and the justification.
	*rec = AuditRecord{
		Kind:      RecordOutcome,
		Time:      rec.Time,
		Principal: memo.masked(red, req.Principal.ID),
		Tool:      out.Result.Name,
		CallID:    out.Result.CallID,
		Parent:    red.String(req.Parent),
		Status:    out.Status,
		Effect:    out.Decision.Effect,
		Rule:      out.Decision.Rule,
		Code:      out.Decision.Code,
		Reason:    out.Decision.Reason,
		// The parts were masked by the firewall; joined, a secret may
		// span two of them.
		Result:  red.String(resultText(&out.Result)),
		IsError: out.Result.IsError,
	}
	if !ca.ran {
		// Nothing ran and the caller has gone: recorded when it can be.
		k.audit.Append(ctx, rec)
		return out, nil
	}
	if _, err := k.commit(ctx, rec); err != nil {
		res := tool.ErrorResult(out.Result.CallID, msgOutcomeNotRecorded)
		res.Name = out.Result.Name
		out.Result, out.Status = res, StatusAuditError
		return out, fmt.Errorf("%w: %w", ErrOutcomeNotRecorded, err)
	}
	return out, nil
}

// commit commits rec, waiting at most the kernel's call timeout, so that
// a store that hangs holds no caller longer than a tool could. late
// reports that the wait ended before the commit did.
func (k *Kernel) commit(ctx context.Context, rec *AuditRecord) (late bool, err error) {
	err = k.audit.commit(ctx, rec, k.timeout)
	late = errors.Is(err, errCommitTimeout) || (err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()))
	return late, err
}

// grantID returns the id of the grant whose canonical payload is p: the
// first length-prefixed field after the version byte.
func grantID(p []byte) string {
	if len(p) < 2 {
		return ""
	}
	n, w := binary.Uvarint(p[1:])
	if w <= 0 || n > uint64(len(p)-1-w) {
		return ""
	}
	return string(p[1+w : 1+w+int(n)])
}
