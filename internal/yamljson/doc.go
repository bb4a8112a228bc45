// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package yamljson converts YAML to JSON: the one converter in the module,
// used by the OpenAPI loader for YAML specs and by config for keys whose
// value is JSON (a command's input_schema).
//
// # Conversion
//
// Mapping keys keep their document order, so a schema comes out in the
// order its author wrote it and output is byte-stable. Duplicate keys are
// errors. Integers are exact: 9007199254740993 stays 9007199254740993,
// however large, and hexadecimal (0x1F) and octal (0o17) integers become
// their decimal value, as the YAML 1.2 core schema reads them; a decimal
// with leading zeros (017) is decimal 17, as in YAML 1.2. Merge keys (<<)
// and aliases are expanded within a node budget, so a "billion laughs"
// document fails instead of exhausting memory. Infinities and NaN, which
// JSON cannot hold, are kept as strings.
//
// # Example
//
//	js, err := yamljson.Convert([]byte("type: object\nmaximum: 0x1F\n"), nil)
//	// js is {"type":"object","maximum":31}
package yamljson
