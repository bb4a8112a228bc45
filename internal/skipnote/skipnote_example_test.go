// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package skipnote_test

import (
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/skipnote"
)

// A helper that finds no server skips the test through [skipnote.Skip];
// with TestMain calling [skipnote.Main], the package then reports the
// suite once, after its tests:
//
//	github.com/toolgate/toolgate/store/redis: skipped 1 suite: Redis (set TOOLGATE_TEST_REDIS_URL; .ci/run starts one)
func ExampleSkip() {
	t := &fakeT{} // in a test, the test's *testing.T
	skipnote.Skip(t, "Redis", "set TOOLGATE_TEST_REDIS_URL; .ci/run starts one")
	fmt.Println(t.msg)
	// Output:
	// skipped Redis: set TOOLGATE_TEST_REDIS_URL; .ci/run starts one
}

// fakeT keeps the message of Skip where a *testing.T would end the test.
type fakeT struct {
	testing.TB
	msg string
}

func (t *fakeT) Helper()          {}
func (t *fakeT) Skip(args ...any) { t.msg = fmt.Sprint(args...) }
