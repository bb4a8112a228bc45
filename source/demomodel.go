// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"net/http"

	"github.com/toolgate/toolgate/source/demo"
)

// DemoModel returns a RoundTripper that answers as the built-in demo model
// ([demo.Model]), in-process: an OpenAI Chat Completions endpoint that
// answers questions about the demo tracker by calling its tools.
func DemoModel() http.RoundTripper { return demo.NewModel().Transport() }
