// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini

import (
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// extPrefix is the prefix of the [tool.Extensions] keys this codec owns:
// every declaration member it has no field for is kept as "gemini/" + its name.
const extPrefix = "gemini/"

// dropped is the warning for a value the Gemini shape has no place for.
func dropped(ptr, what string) tool.Warning {
	return tool.Warning{Pointer: ptr, Code: "gemini-dropped", Message: what + " has no place in a Gemini function declaration and was left out"}
}

func isOwnExt(k string) bool { return strings.HasPrefix(k, extPrefix) }

func shapeErr(ptr, format string, args ...any) error {
	return wire.Errf(codec.ErrUnknownShape, ptr, format, args...)
}

func defErr(ptr, format string, args ...any) error {
	return wire.Errf(tool.ErrInvalidDefinition, ptr, format, args...)
}
