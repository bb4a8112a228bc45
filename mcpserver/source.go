// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/openapi"
)

// OpenAPI returns a capability for each operation of api, run by x (an
// [openapi.Executor] over the same api), with the safety class the
// connector gave the operation: GET reads, DELETE cannot be undone, the
// rest write.
func OpenAPI(api *openapi.API, x kernel.Executor) []kernel.Capability {
	caps := make([]kernel.Capability, 0, len(api.Operations))
	for _, op := range api.Operations {
		caps = append(caps, kernel.Capability{
			Definition: op.Definition,
			Safety:     kernel.Safety(op.Safety),
			Executor:   x,
		})
	}
	return caps
}
