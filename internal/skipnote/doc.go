// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package skipnote makes skipped test suites visible in a plain
// `go test ./...`.
//
// Some tests need what a fresh clone does not have: the shared corpora,
// a PostgreSQL or a Redis server. They skip without it, and `go test`
// without -v hides the skip messages of a passing package, so a newcomer
// sees "ok" and cannot tell that a suite never ran. A helper that finds
// its server missing calls [Skip] instead of t.Skip, and the package's
// TestMain calls [Main], which prints one line for the package after its
// tests have run:
//
//	github.com/toolgate/toolgate/config: skipped 2 suites: PostgreSQL (set TOOLGATE_TEST_POSTGRES_DSN; .ci/run starts one); Redis (set TOOLGATE_TEST_REDIS_URL; .ci/run starts one)
//
// # Example
//
// In the package's main_test.go:
//
//	func TestMain(m *testing.M) { skipnote.Main(m) }
//
// In the helper that needs the server:
//
//	url := os.Getenv("TOOLGATE_TEST_REDIS_URL")
//	if url == "" {
//		skipnote.Skip(t, "Redis", "set TOOLGATE_TEST_REDIS_URL; .ci/run starts one")
//	}
//
// # Where the line goes
//
// The go command shows a passing package's output only with -v, so [Main]
// writes its line to the go command's own standard error, which it opens
// through /proc. That works on Linux only; elsewhere Main prints nothing
// more, and the skip messages are still shown by go test -v. A result
// taken from the test cache is printed without running the tests, so it
// has no line: run with -count=1 to see it again.
package skipnote
