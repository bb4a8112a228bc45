// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build linux

package audit

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// mmapFile is a journal segment written by stores into a shared mapping
// of it rather than by write(2): a store is in the page cache at once,
// so it outlives a crash of the process as a write does. The file's
// blocks are allocated (fallocate) before they are mapped, so that a
// store never meets a hole on a full disk (SIGBUS); an allocation that
// fails is the write's failure, and writes nothing.
type mmapFile struct {
	f    *os.File
	fd   int
	data []byte // the mapping: the whole allocated file
	off  int64  // bytes written
	shut bool   // closed
	// alloc makes the file size bytes long, allocated; tests replace it.
	alloc func(fd int, size int64) error
}

func fallocate(fd int, size int64) error {
	for {
		err := syscall.Fallocate(fd, 0, 0, size)
		if err != syscall.EINTR {
			return err
		}
	}
}

// mapSegment allocates prealloc bytes of f and maps them. Where the file
// system or the kernel cannot (no fallocate, no shared mappings), it
// returns f itself, written with write(2); a full disk is an error.
func mapSegment(f *os.File, prealloc int64, alloc func(fd int, size int64) error) (journalFile, error) {
	if alloc == nil {
		alloc = fallocate
	}
	m := &mmapFile{f: f, fd: int(f.Fd()), alloc: alloc}
	if err := m.grow(prealloc); err != nil {
		if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.EINVAL) {
			if f.Truncate(0) == nil {
				return f, nil
			}
		}
		return nil, err
	}
	return m, nil
}

// grow allocates the file to at least size bytes, whole pages, and maps
// all of it.
func (m *mmapFile) grow(size int64) error {
	page := int64(os.Getpagesize())
	size = (size + page - 1) / page * page
	if size <= int64(len(m.data)) {
		return nil
	}
	if size > 1<<40 || int64(int(size)) != size {
		return &os.PathError{Op: "fallocate", Path: m.f.Name(), Err: syscall.EFBIG}
	}
	if err := m.alloc(m.fd, size); err != nil {
		return &os.PathError{Op: "fallocate", Path: m.f.Name(), Err: err}
	}
	data, err := syscall.Mmap(m.fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return &os.PathError{Op: "mmap", Path: m.f.Name(), Err: err}
	}
	if m.data != nil {
		syscall.Munmap(m.data)
	}
	m.data = data
	return nil
}

// Write copies p into the mapping after what is written, allocating more
// of the file first when p does not fit. It writes all of p or nothing.
func (m *mmapFile) Write(p []byte) (int, error) {
	if m.shut {
		return 0, fmt.Errorf("journal %s: closed", m.f.Name())
	}
	if need := m.off + int64(len(p)); need > int64(len(m.data)) {
		if err := m.grow(need); err != nil {
			return 0, err
		}
	}
	copy(m.data[m.off:], p)
	m.off += int64(len(p))
	return len(p), nil
}

// Truncate cuts what is written back to size bytes: the rest is zeros
// again, which a reader takes for the end.
func (m *mmapFile) Truncate(size int64) error {
	if size < 0 || size > m.off {
		return fmt.Errorf("journal %s: cannot cut %d bytes back to %d", m.f.Name(), m.off, size)
	}
	clear(m.data[size:m.off])
	m.off = size
	return nil
}

// Close unmaps the file, trims the allocated bytes past what is written
// and closes it.
func (m *mmapFile) Close() error {
	if m.shut {
		return os.ErrClosed
	}
	m.shut = true
	var err error
	if m.data != nil {
		err = syscall.Munmap(m.data)
		m.data = nil
	}
	if terr := m.f.Truncate(m.off); err == nil {
		err = terr
	}
	if cerr := m.f.Close(); err == nil {
		err = cerr
	}
	return err
}
