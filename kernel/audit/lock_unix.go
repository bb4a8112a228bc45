// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build unix

package audit

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) on f without waiting: it fails
// while another open file holds one, in this process or another. The
// lock goes with the process: a killed process's journals are unlocked.
func lockFile(f *os.File) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := c.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if lerr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return lerr
}

// linked reports whether f is still a name in its directory: a journal
// removed once it was replayed, or once its process moved all of it into
// the database, must not be replayed by a process that opened it before.
func linked(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink > 0
}

// journalLocks: journals can be told live or dead here.
const journalLocks = true
