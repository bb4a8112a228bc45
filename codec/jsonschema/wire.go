// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package jsonschema

import (
	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// prefix starts every error message of the package.
const prefix = "jsonschema: "

func shapeErr(ptr, format string, args ...any) error {
	return wire.Errf(prefix, codec.ErrUnknownShape, ptr, format, args...)
}

func defErr(ptr, format string, args ...any) error {
	return wire.Errf(prefix, tool.ErrInvalidDefinition, ptr, format, args...)
}
