// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolgate/toolgate/openapi"
	"github.com/toolgate/toolgate/tool"
)

const exampleSpec = `openapi: 3.0.3
info: {title: Pets, version: "1"}
servers: [{url: "https://pets.example/v1"}]
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      summary: Get a pet by id
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
        - {name: fields, in: query, explode: false, schema: {type: array, items: {type: string}}}
      responses:
        "200": {description: ok}
    delete:
      operationId: deletePet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
      responses:
        "204": {description: gone}
`

func ExampleLoad() {
	api, err := openapi.Load(context.Background(), []byte(exampleSpec), "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range api.Operations {
		fmt.Printf("%s %s %s: %s\n", op.Name, op.Method, op.Path, op.Safety)
	}
	fmt.Println(string(api.Operations[0].Definition.InputSchema))
	// Output:
	// getPet GET /pets/{petId}: READ
	// deletePet DELETE /pets/{petId}: DESTRUCTIVE
	// {"type":"object","properties":{"petId":{"type":"string","x-toolgate-in":"path"},"fields":{"type":"array","items":{"type":"string"},"x-toolgate-in":"query"}},"required":["petId"],"additionalProperties":false}
}

func ExampleExecutor_Execute() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q,"query":%q}`, r.URL.EscapedPath(), r.URL.RawQuery)
	}))
	defer srv.Close()

	api, err := openapi.Load(context.Background(), []byte(exampleSpec), "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The test server listens on loopback, which is refused by default.
	x, err := openapi.NewExecutor(api, &openapi.ExecConfig{Server: srv.URL + "/v1", AllowOtherServers: true, AllowPrivate: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := x.Execute(context.Background(), tool.Call{ID: "call_1", Name: "getPet",
		Arguments: json.RawMessage(`{"petId":"a/b","fields":["name","tag"]}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.StructuredContent))
	// Output:
	// {"path":"/v1/pets/a%2Fb","query":"fields=name,tag"}
}

func ExampleWithCredentials() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "authorized: %t", r.Header.Get("Authorization") == "Bearer user-42-token")
	}))
	defer srv.Close()
	spec := strings.Replace(exampleSpec, "paths:", "security: [{bearer: []}]\ncomponents: {securitySchemes: {bearer: {type: http, scheme: bearer}}}\npaths:", 1)
	api, _ := openapi.Load(context.Background(), []byte(spec), "", nil)
	x, _ := openapi.NewExecutor(api, &openapi.ExecConfig{SourceID: "pets", Server: srv.URL, AllowOtherServers: true, AllowPrivate: true})

	// This call, and only this one, carries the user's own token.
	ctx := openapi.WithCredentials(context.Background(), "pets", openapi.Credentials{BearerToken: "user-42-token"})
	res, _ := x.Execute(ctx, tool.Call{Name: "getPet", Arguments: json.RawMessage(`{"petId":"1"}`)})
	fmt.Println(res.Text())
	// Output:
	// authorized: true
}

// A spec broken in one corner still loads: the broken part is left out
// with a warning naming it, and the other operations become tools.
func ExampleLoad_brokenCorner() {
	spec := `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example"}],"paths":{
	"/a":{"get":{"operationId":"getA","parameters":[{"$ref":"#/components/parameters/Missing"}],"responses":{"200":{"description":"ok"}}}},
	"/b":{"get":{"operationId":"getB","responses":{"200":{"description":"ok"}}}}}}`
	api, err := openapi.Load(context.Background(), []byte(spec), "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range api.Operations {
		fmt.Println("tool:", op.Name)
	}
	fmt.Println("broken:", api.Broken)
	for _, w := range api.Warnings {
		fmt.Println(w.Code, w.Pointer)
	}
	// Output:
	// tool: getB
	// broken: 1
	// spec-part-dropped /paths/~1a/get/parameters/0
}
