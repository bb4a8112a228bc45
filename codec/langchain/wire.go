// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package langchain

import (
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/wire"
	"github.com/toolgate/toolgate/tool"
)

// extPrefix is the prefix of the [tool.Extensions] keys this codec owns:
// every tool member it has no field for is kept as "langchain/" + its name.
const extPrefix = "langchain/"

// dropped is the warning for a value the LangChain shape has no place for.
func dropped(ptr, what string) tool.Warning {
	return tool.Warning{Pointer: ptr, Code: "langchain-dropped", Message: what + " has no place in the LangChain shape and was left out"}
}

func isOwnExt(k string) bool { return strings.HasPrefix(k, extPrefix) }

func shapeErr(ptr, format string, args ...any) error {
	return wire.Errf(codec.ErrUnknownShape, ptr, format, args...)
}

func defErr(ptr, format string, args ...any) error {
	return wire.Errf(tool.ErrInvalidDefinition, ptr, format, args...)
}
