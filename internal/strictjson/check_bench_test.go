// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"strings"
	"testing"
)

// benchDoc is a tool list shaped like the BFCL corpus in OpenAI form:
// descriptions, nested properties, enums.
var benchDoc = func() []byte {
	one := `{"type":"function","function":{"name":"flight.status.check","description":"Checks the current status of a flight using the flight number and the name of the passenger, returning the gate, delays and boarding time.","parameters":{"type":"object","properties":{"flight_id":{"type":"string","description":"The unique identifier of the flight, e.g. 'AA123'."},"passenger_name":{"type":"string","description":"The full name of the passenger as it appears on the ticket."},"ticket_number":{"type":"string","description":"The ticket number, 13 digits."},"options":{"type":"object","properties":{"include_gate":{"type":"boolean","default":true},"unit":{"type":"string","enum":["minutes","hours"]}}},"legs":{"type":"array","items":{"type":"integer"},"description":"Leg numbers \"1\" to \"4\"."}},"required":["flight_id","passenger_name","ticket_number"]}}}`
	return []byte("[" + strings.Repeat(one+",", 19) + one + "]")
}()

func BenchmarkCheck(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(benchDoc, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkipValue skips the whole of benchDoc, as a decoder skips a
// schema it keeps raw.
func BenchmarkSkipValue(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	for b.Loop() {
		if SkipValue(benchDoc, 0) != len(benchDoc) {
			b.Fatal("SkipValue did not reach the end")
		}
	}
}
