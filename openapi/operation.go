// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"encoding/json"
	"net/http"

	"github.com/toolgate/toolgate/tool"
)

// ExtOperation is the [tool.Extensions] key under which each definition
// records the operation it calls: {"method","path","operationId"}.
const ExtOperation = "openapi/operation"

// The safety classes of [Operation.Safety], named as the kernel's policy
// names them. The kernel maps them; this package does not import it.
const (
	SafetyRead        = "READ"
	SafetyWrite       = "WRITE"
	SafetyDestructive = "DESTRUCTIVE"
)

// API is a loaded spec: its servers and the operations that became tools.
type API struct {
	// Title and Version are the spec's info.title and info.version.
	Title   string
	Version string
	// OpenAPI is the spec's format version: "2.0", "3.0.3", "3.1.0"…
	OpenAPI string
	// Servers are the spec's servers, with relative URLs resolved against
	// the spec's URL when it was fetched.
	Servers []Server
	// Operations are the selected operations, in document order, the
	// generic tool (if asked for) last.
	Operations []*Operation
	// Skipped counts the operations left out: deprecated or filtered.
	Skipped int
	// Broken counts the operations left out because their part of the
	// spec is malformed (a parameter or body that does not resolve, an
	// operation that is not an object). A warning with code
	// "spec-part-dropped" names each by JSON Pointer; the rest of the
	// spec still becomes tools.
	Broken int
	// Warnings report what loading changed or could not read: recursive
	// schemas cut, unresolved $refs, validation findings.
	Warnings []tool.Warning

	schemes map[string]*scheme
	byName  map[string]*Operation
}

// Tools returns the definition of every operation, in order.
func (a *API) Tools() []tool.Definition {
	out := make([]tool.Definition, len(a.Operations))
	for i, op := range a.Operations {
		out[i] = op.Definition
	}
	return out
}

// Operation returns the operation whose tool is called name, or nil.
func (a *API) Operation(name string) *Operation {
	return a.byName[name]
}

// Server is one base URL of an API.
type Server struct {
	// URL may hold {variables}; it is resolved when a call is made.
	URL         string                    `json:"url"`
	Description string                    `json:"description,omitempty"`
	Variables   map[string]ServerVariable `json:"variables,omitempty"`
}

// ServerVariable is a variable of a [Server] URL.
type ServerVariable struct {
	Default string   `json:"default"`
	Enum    []string `json:"enum,omitempty"`
}

// Operation is one HTTP operation and the tool that calls it.
type Operation struct {
	// Name is the tool's name, unique within the API.
	Name string
	// ID is the spec's operationId, possibly empty.
	ID     string
	Method string
	// Path is the path template, as in the spec ("/pets/{petId}").
	Path       string
	Tags       []string
	Deprecated bool
	// Safety is the class the kernel's policy sees: [SafetyRead],
	// [SafetyWrite] or [SafetyDestructive].
	Safety string
	// Definition is the tool: input schema with one property per
	// parameter, each marked "x-toolgate-in".
	Definition tool.Definition
	// Servers are the operation's servers: its own, its path's or the
	// spec's.
	Servers []Server
	// Params are the path, query, header and cookie parameters.
	Params []*Param
	// Body is the request body, or nil.
	Body *Body
	// Security lists alternative requirements, any one of which suffices;
	// nil or an empty alternative means no credential is needed.
	Security []Requirement
	// Accept is the Accept header the spec's responses call for.
	Accept string
	// Generic is true for the generic HTTP tool.
	Generic bool
}

// Param is one non-body parameter.
type Param struct {
	// Name is the parameter's name on the wire.
	Name string
	// Property is its name in the tool's input object.
	Property string
	// In is "path", "query", "header" or "cookie".
	In            string
	Style         string
	Explode       bool
	AllowReserved bool
	Required      bool
	// ContentType is set for a parameter described by "content" rather
	// than "schema": its value is serialized as that media type (JSON).
	ContentType string
}

// Body is a request body.
type Body struct {
	// MediaType is the Content-Type sent.
	MediaType string
	Required  bool
	// Property names the input property that holds the whole body; empty
	// when the body's properties are inputs of their own (Fields).
	Property string
	// Fields map input properties to body properties, in order.
	Fields []Field
	// Encoding gives per-property content types of form and multipart
	// bodies.
	Encoding map[string]string
	// schema is the rendered schema of the whole body when Property is
	// set.
	schema []byte
}

// Field is one body property lifted into the tool's input.
type Field struct {
	Property string
	Name     string
	// File is true for a binary part: the argument holds base64 or a
	// data: URI.
	File bool
	// Nullable is true when the schema allows null. A null argument for a
	// field that does not is left out of the body: strict providers make
	// every property required and send null for the ones not wanted.
	Nullable bool
	// schema is the field's rendered schema, for pruning such nulls in
	// nested objects too.
	schema []byte
}

// Requirement is one alternative of an operation's security: every scheme
// listed must be satisfied.
type Requirement []SchemeUse

// SchemeUse names a security scheme and the OAuth2 scopes asked of it.
type SchemeUse struct {
	Scheme string
	Scopes []string
}

// safetyOf maps an HTTP method to the kernel's safety class.
func safetyOf(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, "QUERY":
		return SafetyRead
	case http.MethodDelete:
		return SafetyDestructive
	}
	return SafetyWrite
}

// idempotent reports whether a request with method may be repeated with
// the same effect, which decides whether it is retried.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete, "QUERY":
		return true
	}
	return false
}

// annotationsFor derives MCP hints from the method.
func annotationsFor(method, title string) *tool.Annotations {
	read := safetyOf(method) == SafetyRead
	a := &tool.Annotations{
		Title:          title,
		ReadOnlyHint:   tool.Bool(read),
		IdempotentHint: tool.Bool(idempotent(method)),
		OpenWorldHint:  tool.Bool(true),
	}
	if !read {
		a.DestructiveHint = tool.Bool(method == http.MethodDelete)
	}
	return a
}

func capabilityFor(method string) *tool.Behavior {
	c := &tool.Behavior{
		SideEffects: tool.Bool(safetyOf(method) != SafetyRead),
		Idempotent:  tool.Bool(idempotent(method)),
		Inferred:    true,
	}
	switch method {
	case http.MethodGet, http.MethodHead, "QUERY":
		c.Action = tool.ActionRead
	case http.MethodPost:
		c.Action = tool.ActionCreate
	case http.MethodPut, http.MethodPatch:
		c.Action = tool.ActionUpdate
	case http.MethodDelete:
		c.Action = tool.ActionDelete
	}
	return c
}

func operationExt(method, path, id string) tool.Extensions {
	b, _ := json.Marshal(struct {
		Method string `json:"method"`
		Path   string `json:"path"`
		ID     string `json:"operationId,omitempty"`
	}{method, path, id})
	return tool.Extensions{ExtOperation: b}
}
