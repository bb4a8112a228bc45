// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

// This file holds what the package adds to the shared readers and writers
// of internal/wire: its name in messages and its arguments error.

import (
	"errors"

	"github.com/toolgate/toolgate/internal/wire"
)

// ErrInvalidArguments reports a tool call whose arguments are not a JSON
// object (or not a string holding one).
var ErrInvalidArguments = errors.New("function call arguments are not a JSON object")

// defErr reports a definition no provider could accept.
func defErr(ptr, format string, args ...any) error {
	return wire.DefErr(ptr, format, args...)
}
