// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build unix

package direct

import (
	"net"
	"syscall"
)

// peerClosed reports whether the server closed c (or sent on it
// unasked) while it was idle, without waiting: a connection it reports
// open may still be closed an instant later, which a write then finds.
func peerClosed(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read (EAGAIN) is an open, quiet connection; an end
		// of stream, bytes nobody asked for or an error is not.
		closed = err != syscall.EAGAIN && err != syscall.EWOULDBLOCK || n > 0
		return true
	})
	return closed || err != nil
}
