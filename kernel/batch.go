// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"context"
	"sync"

	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/tool"
)

// CallBatch runs reqs in parallel, at most Config.Concurrency at a time,
// and returns their outcomes in order. When ctx is cancelled, calls not
// yet started end with a tool error saying so; running calls see the
// cancelled context. The error is the first the kernel itself hit (see
// [Kernel.Call]).
func (k *Kernel) CallBatch(ctx context.Context, reqs []Request) ([]Outcome, error) {
	out := make([]Outcome, len(reqs))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	n := k.parallel
	if n < 0 {
		n = max(len(reqs), 1)
	}
	sem := make(chan struct{}, n)
	for i := range reqs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			out[i] = cancelled(k.redactor(), &reqs[i])
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			o, err := k.Call(ctx, &reqs[i])
			out[i] = o
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out, firstErr
}

func cancelled(red *redact.Redactor, r *Request) Outcome {
	res := tool.ErrorResult(red.String(r.Call.ID), "the call was cancelled before it ran")
	res.Name = red.String(r.Call.Name)
	return Outcome{Result: res, Status: StatusExecutorError}
}
