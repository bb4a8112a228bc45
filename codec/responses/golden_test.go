// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package responses

import (
	"flag"
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/goldentest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestGoldenTools(t *testing.T) {
	goldentest.Want(t, "testdata/tools.txtar", *update, func(in []byte) string {
		tools, err := DecodeTools(in)
		if err != nil {
			return "error: " + err.Error()
		}
		out, ws, err := EncodeTools(tools)
		if err != nil {
			return "encode error: " + err.Error()
		}
		return fmt.Sprintf("single: %v\n%s%s== encoded ==\n%s\n", tools.Single, goldentest.Warnings(tools.Warnings), goldentest.JSON(tools.Defs), out) + goldentest.Warnings(ws)
	})
}

func TestGoldenResponse(t *testing.T) {
	goldentest.Want(t, "testdata/response.txtar", *update, goldentest.Reported(DecodeResponse, EncodeResponse))
}

func TestGoldenResults(t *testing.T) {
	goldentest.Want(t, "testdata/results.txtar", *update, goldentest.Reported(DecodeResults, EncodeResults))
}

func TestGoldenChoice(t *testing.T) {
	goldentest.Want(t, "testdata/choice.txtar", *update, goldentest.Reported(DecodeChoice, EncodeChoice))
}
