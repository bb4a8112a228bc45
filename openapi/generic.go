// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// genericSchema is the input of the generic HTTP tool.
const genericSchema = `{"type":"object","properties":{` +
	`"method":{"type":"string","enum":["GET","HEAD","POST","PUT","PATCH","DELETE"],"description":"HTTP method"},` +
	`"path":{"type":"string","description":"Path relative to the API's base URL, starting with /, without scheme or host"},` +
	`"query":{"type":"object","additionalProperties":{"type":"string"},"description":"Query parameters"},` +
	`"headers":{"type":"object","additionalProperties":{"type":"string"},"description":"Extra request headers"},` +
	`"body":{"description":"JSON request body"}},` +
	`"required":["method","path"],"additionalProperties":false}`

// genericOperation is the optional tool that calls any path of the API's
// servers. Its safety class is the worst a call may have.
func genericOperation(servers []Server, security []Requirement) *Operation {
	op := &Operation{Name: "http_request", Method: "*", Path: "/**", Safety: SafetyDestructive,
		Servers: servers, Generic: true, Security: security}
	op.Definition = tool.Definition{
		Name:        op.Name,
		Description: "Send an HTTP request to any path of this API's server. Prefer the API's specific tools when one fits.",
		InputSchema: []byte(genericSchema),
		Annotations: &tool.Annotations{OpenWorldHint: tool.Bool(true)},
		Extensions:  operationExt("*", "/**", ""),
	}
	return op
}

// forbiddenHeaders may not be set through the generic tool: they carry
// credentials or framing the executor owns.
var forbiddenHeaders = map[string]bool{
	"Host": true, "Authorization": true, "Cookie": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Proxy-Authorization": true, "Te": true, "Upgrade": true, "Trailer": true,
}

// buildGeneric turns the generic tool's arguments into a request. The
// path is joined to base and may not leave it.
func buildGeneric(base string, args []byte) (*request, error) {
	method := str(args, "method")
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil, fmt.Errorf("method %q is not allowed", method)
	}
	p := str(args, "path")
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "#\\\x00") || strings.Contains(p, "://") {
		return nil, errors.New("path must be relative to the API's base URL and start with /")
	}
	raw, _, _ := strings.Cut(p, "?")
	for _, seg := range strings.Split(raw, "/") {
		if seg == ".." || seg == "." || strings.EqualFold(seg, "%2e%2e") || strings.EqualFold(seg, "%2e") {
			return nil, errors.New("path may not contain dot segments")
		}
	}
	// Encode what is not already valid in a path (RFC 3986 pchar and
	// '/'), keeping existing %XX triples; "#" and brackets are data.
	var pb strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if keep(raw, i, false) || c == '%' || strings.IndexByte(":@!$&'()*+,;=/", c) >= 0 {
			pb.WriteByte(c)
		} else {
			fmt.Fprintf(&pb, "%%%02X", c)
		}
	}
	r := &request{method: method, header: http.Header{}, url: base + pb.String()}
	var query []string
	if _, q, ok := strings.Cut(p, "?"); ok && q != "" {
		query = append(query, q)
	}
	err := members(strictjson.Get(args, "query"), func(k, v []byte) error {
		query = append(query, escape(string(k), false)+"="+escape(scalar(v), false))
		return nil
	})
	if err != nil && strictjson.Get(args, "query") != nil {
		return nil, errors.New("query must be an object")
	}
	if len(query) > 0 {
		r.url += "?" + strings.Join(query, "&")
	}
	err = members(strictjson.Get(args, "headers"), func(k, v []byte) error {
		name := textproto.CanonicalMIMEHeaderKey(string(k))
		if forbiddenHeaders[name] || strings.HasPrefix(name, "Sec-") || strings.HasPrefix(name, "Proxy-") {
			return fmt.Errorf("header %q may not be set", name)
		}
		s, err := serializeHeader(&Param{Name: name}, v)
		if err != nil {
			return err
		}
		r.header.Set(name, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if b := strictjson.Get(args, "body"); b != nil && strictjson.KindOf(b) != strictjson.Null {
		r.body = bytes.TrimSpace(b)
		r.contentType = "application/json"
	}
	return r, nil
}
