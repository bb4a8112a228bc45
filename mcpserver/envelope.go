// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package mcpserver

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// maxEnvelopeMember bounds the envelope's own members (method, id): no
// method or id of MCP comes near it, and a proxy or log that reads them
// should not be handed megabytes.
const maxEnvelopeMember = 256

// maxEnvelopeDepth bounds nesting in a request body.
const maxEnvelopeDepth = 128

// JSON-RPC error codes this layer answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

const sessionIDHeader = "Mcp-Session-Id"

// envelope checks a POST body before the SDK reads it: strict JSON (no
// duplicate names, valid UTF-8, bounded depth), envelope members of
// bounded size, and a session id on everything but initialize. The SDK
// decodes with encoding/json, where the last of two duplicate names wins;
// a proxy that reads the first would see another call, so duplicates are
// refused here with a parse error and 400. The id of a body that is
// one message goes on to the call's span in the rpcIDHeader.
func (s *Server) envelope(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(rpcIDHeader) // only the envelope says it
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || mt != "application/json" {
			// The SDK answers other methods and media types (405, 415).
			next.ServeHTTP(w, r)
			return
		}
		var rd io.Reader = r.Body
		if n := s.cfg.MaxRequestBytes; n > 0 {
			rd = http.MaxBytesReader(w, r.Body, n)
		}
		body, err := io.ReadAll(rd)
		if err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "could not read the request body", http.StatusBadRequest)
			return
		}
		if err := strictjson.Check(body, &strictjson.Options{MaxBytes: -1, MaxDepth: maxEnvelopeDepth}); err != nil {
			writeRPCError(w, nil, codeParseError, "Parse error: "+parseProblem(err))
			return
		}
		init, id, problem := inspect(body)
		if problem != "" {
			writeRPCError(w, nil, codeParseError, "Parse error: "+problem)
			return
		}
		if !init && r.Header.Get(sessionIDHeader) == "" {
			writeRPCError(w, id, codeInvalidRequest, "Bad Request: Mcp-Session-Id header is required for every request but initialize")
			return
		}
		if k := strictjson.KindOf(id); k == strictjson.String || k == strictjson.Number {
			r.Header.Set(rpcIDHeader, string(id))
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// parseProblem names what strictjson found, without document content.
func parseProblem(err error) string {
	switch {
	case errors.Is(err, strictjson.ErrDuplicateName):
		return "duplicate member name"
	case errors.Is(err, strictjson.ErrInvalidUTF8):
		return "invalid UTF-8"
	case errors.Is(err, strictjson.ErrTooDeep):
		return "nesting too deep"
	case errors.Is(err, strictjson.ErrTooLarge):
		return "too large"
	}
	return "invalid JSON"
}

// inspect reads the envelope of a checked body: whether it is an
// initialize request, its id (for the error response), and what is wrong
// with it, if anything.
func inspect(body []byte) (init bool, id []byte, problem string) {
	msgs := [][]byte{body}
	switch strictjson.KindOf(body) {
	case strictjson.Object:
	case strictjson.Array:
		msgs = msgs[:0]
		strictjson.Elements(body, func(_ int, v []byte) error {
			msgs = append(msgs, v)
			return nil
		})
	default:
		return false, nil, "a JSON-RPC message must be an object"
	}
	for _, m := range msgs {
		if strictjson.KindOf(m) != strictjson.Object {
			return false, nil, "a JSON-RPC message must be an object"
		}
		method, mid := strictjson.Get(m, "method"), strictjson.Get(m, "id")
		if len(method) > maxEnvelopeMember || len(mid) > maxEnvelopeMember {
			return false, nil, "method or id too long"
		}
		if len(msgs) == 1 {
			id = mid
			init = string(method) == `"initialize"`
		}
	}
	return init, id, ""
}

// writeRPCError answers with HTTP 400 and a JSON-RPC error.
func writeRPCError(w http.ResponseWriter, id []byte, code int, msg string) {
	if k := strictjson.KindOf(id); k != strictjson.String && k != strictjson.Number {
		id = []byte("null")
	}
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = strictjson.AppendQuote(b, msg)
	b = append(b, "}}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(b)
}
