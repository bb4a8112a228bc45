// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package canonical

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

func shapeErr(ptr, format string, args ...any) error {
	return wire.Errf(codec.ErrUnknownShape, ptr, format, args...)
}

func defErr(ptr, format string, args ...any) error {
	return wire.Errf(tool.ErrInvalidDefinition, ptr, format, args...)
}
