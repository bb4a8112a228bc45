// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import "fmt"

// Warning reports one change made to, or one problem found in, a value that
// was still usable: a keyword moved into a description, a call salvaged from
// broken output, a field a target format cannot carry. Nothing toolgate
// changes or drops goes unreported.
type Warning struct {
	// Pointer is the JSON Pointer of the place the warning is about, within
	// the document named by the caller (a schema, a file, a response).
	Pointer string `json:"pointer"`
	// Code is a stable, machine-readable kebab-case identifier.
	Code string `json:"code"`
	// Message says what happened, for people.
	Message string `json:"message"`
}

func (w Warning) String() string {
	if w.Pointer == "" {
		return fmt.Sprintf("%s: %s", w.Code, w.Message)
	}
	return fmt.Sprintf("%s: %s: %s", w.Pointer, w.Code, w.Message)
}
