// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package openapi turns the operations of a Swagger 2.0 or OpenAPI 3.x
// spec into tools, one per operation, and calls them over HTTP as a
// careful client would.
//
// # Loading
//
// [Load], [LoadFile] and [LoadURL] read JSON or YAML. OpenAPI 3.0, 3.1
// and 3.2 documents are read as raw JSON (YAML converted with key order
// kept) and their $refs resolved by JSON Pointer; Swagger 2.0 goes through
// kin-openapi's converter first. [Config.Validate] adds kin-openapi's
// validation, example values excepted, as warnings: real specs break the
// letter of the standard and still describe usable APIs.
//
// External $refs are read only from [Config.AllowRefDirs] and
// [Config.AllowRemote]; a spec read from bytes cannot make toolgate read a
// file. Recursive schemas are expanded [Config.MaxRecursion] times and then
// cut, with a warning; so is structure nested deeper than strict providers
// accept ([Config.MaxNesting]).
//
// # Tools
//
// Each [Operation] carries a [tool.Definition]: a name every provider
// accepts (from the operationId, else method and path; collisions get
// "_2", "_3"), a description from summary and description, and one input
// object holding the path, query, header and cookie parameters (path-level
// ones merged in) and the request body. A plain object body is lifted into
// properties of their own. Every property is marked "x-toolgate-in" with
// where it goes, and "x-toolgate-name" when its name had to change; a name
// two locations share is suffixed with the location ("id_query").
// OpenAPI 3.0 keywords become JSON Schema (nullable, boolean exclusive
// bounds, example); readOnly properties leave inputs and writeOnly ones
// outputs. The output schema is the first 2xx JSON response, when it is an
// object. Annotations and the kernel's safety class ([Operation.Safety])
// follow the method: GET and HEAD read, DELETE destroys, PUT and DELETE are
// idempotent. Deprecated operations are left out unless asked for, and
// [Filter]s select by tag, path glob, method and operationId.
//
// # Calls
//
// An [Executor] makes the calls; its Execute method has the shape of the
// kernel's executor interface without importing the kernel. It builds the
// URL from the server (variables and base path) and the path template,
// percent-encoding every path parameter and replacing every occurrence;
// serializes query parameters in the form (exploded or not),
// spaceDelimited, pipeDelimited and deepObject styles, and header and
// cookie parameters; writes JSON, form and multipart bodies, file parts
// given as base64 or data: URIs (a null for a body property whose schema
// does not allow null, as strict providers send for unwanted ones, is left
// out); and authenticates with the spec's
// security schemes: bearer, API key in header, query or cookie, HTTP basic,
// OAuth2 client credentials with a cached token. [WithCredentials] gives
// one call its own credentials. Credentials never appear in definitions,
// results or errors: the executor masks them wherever the API echoes them.
//
// # Safety
//
// Calls go only to the spec's servers, and redirects stay within them
// (same scheme, host and port, under the server's base path) unless
// [ExecConfig.AllowRedirectsAnywhere]. Private, loopback and link-local
// addresses, and IPv6 forms that embed them, are refused unless
// [ExecConfig.AllowPrivate], checked on the address dialed after DNS
// resolution and again on every redirect; a failed lookup is [ErrResolve],
// never [ErrBlockedAddress]. Each attempt has a timeout and the whole
// call, retries and waits included, a total deadline
// ([ExecConfig.TotalTimeout]); idempotent methods are retried with
// backoff on 429, 502, 503 and 504, honouring Retry-After up to
// [ExecConfig.MaxRetryWait]. At most [ExecConfig.MaxResponseBytes] of a
// body is read and at most [ExecConfig.MaxResultTokens] of text reaches
// the model, with a note of what was cut; binary bodies are summarized by
// type, size and SHA-256. The API's failures are results with IsError
// set; only the executor's own failures are Go errors.
//
// # Broken specs
//
// A malformed part of a spec costs only what it touches: a response
// schema, a definition, an operation or a path item is left out with a
// "spec-part-dropped" warning naming it by JSON Pointer, and [API.Broken]
// counts the operations lost. An external $ref outside the allowed
// locations still fails the load.
//
// # Example
//
//	api, err := openapi.LoadFile(ctx, "petstore.yaml", nil)
//	if err != nil { ... }
//	for _, d := range api.Tools() {
//		fmt.Println(d.Name)
//	}
//	creds := openapi.CredentialsFromEnv(os.Getenv)
//	x, err := openapi.NewExecutor(api, &openapi.ExecConfig{Credentials: &creds})
//	res, err := x.Execute(ctx, tool.Call{ID: "1", Name: "getPet", Arguments: json.RawMessage(`{"petId":"7"}`)})
package openapi
