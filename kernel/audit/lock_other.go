// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build !unix

package audit

import (
	"errors"
	"os"
)

// lockFile cannot tell a live process's journal from a dead one's here:
// every journal is taken for live, and none is replayed but by its own
// process (at a clean stop, everything in it is in the database).
func lockFile(*os.File) error { return errLockUnsupported }

var errLockUnsupported = errors.New("audit: journal locks need a unix system")

func linked(*os.File) bool { return true }

// journalLocks: journals cannot be told live or dead here, so the
// store commits through SQLite at every sync mode.
const journalLocks = false
