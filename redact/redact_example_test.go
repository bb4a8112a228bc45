// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/toolgate/toolgate/redact"
)

func ExampleRedactor_String() {
	r := redact.Default()
	fmt.Println(r.String("connect to postgres://app:s3cr3t-pw@db:5432/orders"))
	fmt.Println(r.String("Authorization: Bearer abc123.def456.ghi789"))
	fmt.Println(r.String("card 4242 4242 4242 4242, order 1700000000000"))
	// Output:
	// connect to postgres://app:[REDACTED:url-password]@db:5432/orders
	// Authorization: Bearer [REDACTED:bearer-token]
	// card [REDACTED:card-number], order 1700000000000
}

func ExampleRedactor_JSON() {
	r := redact.Default()
	in := json.RawMessage(`{"user":"ada","db":{"password":"hunter2","url":"redis://:pw12345@cache:6379"},"ok":true}`)
	fmt.Println(string(r.JSON(in)))
	// Output:
	// {"user":"ada","db":{"password":"[REDACTED]","url":"redis://:[REDACTED:url-password]@cache:6379"},"ok":true}
}

func ExampleNew() {
	r, err := redact.New(&redact.Config{
		Patterns: []redact.Pattern{{Name: "ticket", Regexp: `INC-\d{6}`}},
		Keys:     []string{"ssn"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.String("see INC-004211"))
	fmt.Println(string(r.JSON(json.RawMessage(`{"name":"Ada","SSN":"078-05-1120"}`))))
	// Output:
	// see [REDACTED:ticket]
	// {"name":"Ada","SSN":"[REDACTED]"}
}

func ExampleRedactor_Strings() {
	r := redact.Default()
	// A private key that a tool returned in two content parts.
	parts := []string{
		"here is the key:\n-----BEGIN " + "PRIVATE KEY-----\n",
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\nbye",
	}
	for _, p := range r.Strings(parts) {
		fmt.Printf("%q\n", p)
	}
	// Output:
	// "here is the key:\n[REDACTED:private-key]"
	// "[REDACTED:private-key]\nbye"
}

func ExampleRedactor_WithValues() {
	// A credential with no recognisable shape, from a tool's configuration.
	r := redact.Default().WithValues("opaque-svc-credential")
	fmt.Println(r.String("the service said: bad credential opaque-svc-credential"))
	fmt.Println(string(r.JSON(json.RawMessage(`{"echo":"opaque-svc-credential"}`))))
	// Output:
	// the service said: bad credential [REDACTED:credential]
	// {"echo":"[REDACTED:credential]"}
}
