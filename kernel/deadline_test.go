// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolgate/toolgate/tool"
)

// TestCallDeadline pins how the per-call deadline is enforced without a
// timer for executors that never wait: a late result is discarded, Err
// and Cause report the deadline, and a kept context reads as cancelled
// after the call.
func TestCallDeadline(t *testing.T) {
	var kept context.Context
	const short = 15 * time.Millisecond
	tests := []struct {
		name    string
		timeout time.Duration // the capability's; the fast cases get a long one so a stalled machine cannot fail them
		parent  time.Duration // caller's timeout; zero: none
		exec    func(ctx context.Context) (tool.Result, error)
		want    Status
		check   func(t *testing.T)
	}{
		{"fastWithoutDone", time.Minute, 0, func(ctx context.Context) (tool.Result, error) {
			if _, ok := ctx.Deadline(); !ok {
				return tool.ErrorResult("", "no deadline"), nil
			}
			return tool.TextResult("", "ok"), nil
		}, StatusOK, nil},
		{"lateWithoutDone", short, 0, func(ctx context.Context) (tool.Result, error) {
			time.Sleep(40 * time.Millisecond)
			return tool.TextResult("", "late"), nil
		}, StatusExecutorError, nil},
		{"errAfterDeadline", short, 0, func(ctx context.Context) (tool.Result, error) {
			time.Sleep(40 * time.Millisecond)
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return tool.ErrorResult("", "err is "+errString(ctx.Err())), nil
			}
			if !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return tool.ErrorResult("", "cause is "+errString(context.Cause(ctx))), nil
			}
			return tool.Result{}, ctx.Err()
		}, StatusExecutorError, nil},
		{"waitsOnDone", short, 0, func(ctx context.Context) (tool.Result, error) {
			child, cancel := context.WithCancel(ctx)
			defer cancel()
			<-child.Done()
			return tool.Result{}, child.Err()
		}, StatusExecutorError, nil},
		{"callerEarlier", time.Minute, 5 * time.Millisecond, func(ctx context.Context) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}, StatusExecutorError, nil},
		{"keptAfterReturn", time.Minute, 0, func(ctx context.Context) (tool.Result, error) {
			kept = ctx
			return tool.TextResult("", "ok"), nil
		}, StatusOK, func(t *testing.T) {
			if err := kept.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("kept context Err = %v, want Canceled", err)
			}
			select {
			case <-kept.Done():
			case <-time.After(time.Second):
				t.Error("kept context's Done did not close")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := NewRegistry()
			exec := tt.exec
			if err := reg.Add(Capability{
				Definition: tool.Definition{Name: "t"},
				Safety:     SafetyRead,
				Timeout:    tt.timeout,
				Executor:   ExecutorFunc(func(ctx context.Context, _ tool.Call) (tool.Result, error) { return exec(ctx) }),
			}); err != nil {
				t.Fatal(err)
			}
			k, err := New(&Config{Registry: reg, Principals: []Principal{*reader}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.parent > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.parent)
				defer cancel()
			}
			out, err := k.Call(ctx, &Request{Principal: *reader, Call: tool.Call{Name: "t", Arguments: []byte(`{}`)}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.want {
				t.Errorf("status %s (%s), want %s", out.Status, out.Result.Text(), tt.want)
			}
			if tt.check != nil {
				tt.check(t)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
