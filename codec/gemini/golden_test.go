// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gemini

import (
	"flag"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")
