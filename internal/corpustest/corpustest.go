// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package corpustest finds the shared corpora of real data for tests:
// $TOOLGATE_CORPORA, or ../shared/corpora beside the repository.
//
// A test that needs the corpora calls [Dir]; when they are absent it skips
// through skipnote.Skip (so that the package's TestMain, calling
// skipnote.Main, reports the skipped suite), unless TOOLGATE_REQUIRE_CORPORA
// is set (as .ci/run does), in which case it fails: CI must never pass by
// skipping them.
//
//	dir := corpustest.Dir(t, "bfcl")
package corpustest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/skipnote"
)

// Dir returns the path of the corpora sub-folder sub (or of the corpora
// root when sub is ""), skipping or failing t when it is absent.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv("TOOLGATE_CORPORA")
	if root == "" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
		if err == nil {
			root = filepath.Join(strings.TrimSpace(string(out)), "..", "shared", "corpora")
		}
	}
	dir := filepath.Join(root, sub)
	if root == "" {
		dir = ""
	}
	if fi, err := os.Stat(dir); dir == "" || err != nil || !fi.IsDir() {
		msg := "corpora not found at " + dir + " (set TOOLGATE_CORPORA or put shared/ beside the repository)"
		if os.Getenv("TOOLGATE_REQUIRE_CORPORA") != "" {
			t.Fatal(msg)
		}
		t.Log(msg)
		skipnote.Skip(t, "corpus", "put shared/ beside the repository or set TOOLGATE_CORPORA")
	}
	return dir
}
