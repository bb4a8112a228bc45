// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build !linux

package audit

import (
	"errors"
	"os"
)

// mapSegment returns f: outside Linux the journal is written with
// write(2).
func mapSegment(f *os.File, prealloc int64, alloc func(fd int, size int64) error) (journalFile, error) {
	return f, nil
}

// fallocate is not used outside Linux.
func fallocate(fd int, size int64) error { return errors.ErrUnsupported }
