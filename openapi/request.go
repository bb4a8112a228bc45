// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// buildRequest turns checked arguments into a request for op at base.
func buildRequest(op *Operation, base string, args []byte) (*request, error) {
	vals := map[string][]byte{}
	var unknown []string
	known := map[string]bool{}
	for _, p := range op.Params {
		known[p.Property] = true
	}
	if op.Body != nil {
		if op.Body.Property != "" {
			known[op.Body.Property] = true
		}
		for _, f := range op.Body.Fields {
			known[f.Property] = true
		}
	}
	_ = members(args, func(k, v []byte) error {
		if !known[string(k)] {
			unknown = append(unknown, string(k))
		}
		vals[string(k)] = v
		return nil
	})
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown argument %q", unknown[0])
	}
	r := &request{method: op.Method, header: http.Header{}}
	pathVals := map[string]string{}
	var query []string
	for _, p := range op.Params {
		v, ok := vals[p.Property]
		if !ok || strictjson.KindOf(v) == strictjson.Null {
			if p.Required {
				return nil, fmt.Errorf("missing required argument %q", p.Property)
			}
			continue
		}
		switch p.In {
		case "path":
			pathVals[p.Name] = serializePath(p.Name, p.Style, p.Explode, v)
		case "query":
			query = append(query, serializeQuery(p, v)...)
		case "header":
			s, err := serializeHeader(p, v)
			if err != nil {
				return nil, err
			}
			r.header.Set(p.Name, s)
		case "cookie":
			r.cookies = append(r.cookies, serializeCookie(p, v)...)
		}
	}
	u := base + expandPath(op.Path, pathVals)
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + strings.Join(query, "&")
	}
	r.url = u
	if op.Body != nil {
		if err := encodeBody(r, op.Body, vals); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// encodeBody writes the request body in the operation's media type.
func encodeBody(r *request, b *Body, vals map[string][]byte) error {
	var whole []byte
	if b.Property != "" {
		whole = vals[b.Property]
		if whole == nil || strictjson.KindOf(whole) == strictjson.Null {
			if b.Required {
				return fmt.Errorf("missing required argument %q", b.Property)
			}
			return nil
		}
	} else {
		// Reassemble the object from the lifted properties, in order.
		obj := []byte{'{'}
		first := true
		any := false
		for _, f := range b.Fields {
			v, ok := vals[f.Property]
			if !ok || (!f.Nullable && strictjson.KindOf(v) == strictjson.Null) {
				continue
			}
			any = true
			obj = appendKey(obj, &first, f.Name)
			obj = pruneNulls(obj, v, f.schema, 0)
		}
		obj = append(obj, '}')
		if !any && !b.Required {
			return nil
		}
		whole = obj
	}
	if b.Property != "" {
		whole = pruneNulls(nil, whole, b.schema, 0)
	}
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(b.MediaType, ";", 2)[0]))
	switch {
	case isJSONMedia(mt) || mt == "*/*":
		r.body = bytes.TrimSpace(whole)
		r.contentType = b.MediaType
	case mt == "application/x-www-form-urlencoded":
		if strictjson.KindOf(whole) != strictjson.Object {
			return errors.New("a form body must be an object")
		}
		var parts []string
		_ = members(whole, func(k, v []byte) error {
			name := escape(string(k), false)
			if ct := b.Encoding[string(k)]; ct != "" && isJSONMedia(ct) {
				parts = append(parts, name+"="+escape(string(v), false))
				return nil
			}
			switch strictjson.KindOf(v) {
			case strictjson.Array:
				for _, it := range arrayItems(v) {
					parts = append(parts, name+"="+escape(it, false))
				}
			case strictjson.Object:
				deepObject(&parts, name, v, func(s string) string { return escape(s, false) })
			case strictjson.Null:
			default:
				parts = append(parts, name+"="+escape(scalar(v), false))
			}
			return nil
		})
		r.body = []byte(strings.Join(parts, "&"))
		r.contentType = "application/x-www-form-urlencoded"
	case mt == "multipart/form-data":
		return encodeMultipart(r, b, whole)
	default:
		// Text and binary media: a string argument, binary ones as base64
		// or a data: URI.
		if strictjson.KindOf(whole) != strictjson.String {
			r.body = bytes.TrimSpace(whole)
		} else {
			s, _ := strictjson.Unquote(whole)
			if strings.HasPrefix(mt, "text/") || mt == "application/xml" {
				r.body = []byte(s)
			} else {
				data, _, err := decodeFile(s)
				if err != nil {
					return fmt.Errorf("body: %w", err)
				}
				r.body = data
			}
		}
		r.contentType = b.MediaType
	}
	return nil
}

func encodeMultipart(r *request, b *Body, whole []byte) error {
	if strictjson.KindOf(whole) != strictjson.Object {
		return errors.New("a multipart body must be an object")
	}
	files := map[string]bool{}
	for _, f := range b.Fields {
		if f.File {
			files[f.Name] = true
		}
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	err := members(whole, func(k, v []byte) error {
		name := string(k)
		values := [][]byte{v}
		if strictjson.KindOf(v) == strictjson.Array && (files[name] || b.Encoding[name] == "") {
			values = nil
			_ = elements(v, func(_ int, e []byte) error {
				values = append(values, e)
				return nil
			})
		}
		for i, v := range values {
			if strictjson.KindOf(v) == strictjson.Null {
				continue
			}
			h := textproto.MIMEHeader{}
			ct := b.Encoding[name]
			var data []byte
			if files[name] && strictjson.KindOf(v) == strictjson.String {
				s, _ := strictjson.Unquote(v)
				d, mediaType, err := decodeFile(s)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				data = d
				if ct == "" {
					ct = mediaType
				}
				filename := name
				if len(values) > 1 {
					filename = fmt.Sprintf("%s-%d", name, i+1)
				}
				h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": name, "filename": filename}))
			} else {
				h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": name}))
				switch strictjson.KindOf(v) {
				case strictjson.Object, strictjson.Array:
					data = bytes.TrimSpace(v)
					if ct == "" {
						ct = "application/json"
					}
				default:
					data = []byte(scalar(v))
				}
			}
			if ct != "" {
				h.Set("Content-Type", ct)
			}
			pw, err := w.CreatePart(h)
			if err != nil {
				return err
			}
			if _, err := pw.Write(data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	r.body = buf.Bytes()
	r.contentType = w.FormDataContentType()
	return nil
}

// pruneNulls appends v to dst without the object members whose value is
// null where the schema s does not allow null: what a strict provider
// sends for a property the model did not want. Objects are followed
// through "properties", arrays through "items".
func pruneNulls(dst, v, s []byte, depth int) []byte {
	if depth > 64 || strictjson.KindOf(s) != strictjson.Object {
		return append(dst, v...)
	}
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		props := strictjson.Get(s, "properties")
		if props == nil {
			return append(dst, v...)
		}
		dst = append(dst, '{')
		first := true
		_ = members(v, func(k, e []byte) error {
			ps := strictjson.Get(props, string(k))
			if strictjson.KindOf(e) == strictjson.Null && ps != nil && !allowsNull(ps) {
				return nil
			}
			dst = appendKey(dst, &first, string(k))
			dst = pruneNulls(dst, e, ps, depth+1)
			return nil
		})
		return append(dst, '}')
	case strictjson.Array:
		items := strictjson.Get(s, "items")
		if items == nil {
			return append(dst, v...)
		}
		dst = append(dst, '[')
		_ = elements(v, func(i int, e []byte) error {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = pruneNulls(dst, e, items, depth+1)
			return nil
		})
		return append(dst, ']')
	}
	return append(dst, v...)
}

// decodeFile reads file contents given as a data: URI
// ("data:image/png;base64,...") or as base64 (standard or URL alphabet,
// padded or not). It returns the bytes and the media type, which is
// application/octet-stream unless the URI names one.
func decodeFile(s string) ([]byte, string, error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok {
			return nil, "", errors.New("data URI without a comma")
		}
		mediaType := "text/plain;charset=US-ASCII"
		isB64 := false
		if m, ok := strings.CutSuffix(meta, ";base64"); ok {
			meta, isB64 = m, true
		}
		if meta != "" {
			mediaType = meta
		}
		if isB64 {
			d, err := decodeBase64(payload)
			return d, mediaType, err
		}
		d, err := url.PathUnescape(payload)
		if err != nil {
			return nil, "", errors.New("data URI: bad percent-encoding")
		}
		return []byte(d), mediaType, nil
	}
	d, err := decodeBase64(s)
	return d, "application/octet-stream", err
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(s); err == nil {
			return d, nil
		}
	}
	return nil, errors.New("file contents are neither base64 nor a data: URI")
}

// maxErrorBody is how much of an error response body a result quotes.
const maxErrorBody = 2048

// bytesPerToken is the estimate used to turn a token cap into bytes:
// English prose and JSON average about four bytes a token in the
// tokenizers of the providers toolgate serves.
const bytesPerToken = 4

// result turns a response into what the model reads. data is the body
// read, truncated when the body was longer than readLimit; maxText is
// the most bytes of text handed on (negative: no cap).
func result(resp *http.Response, data []byte, truncated bool, readLimit int64, maxText int) tool.Result {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	mt = strings.ToLower(mt)
	size := fmt.Sprintf("%d bytes", len(data))
	if truncated {
		size = fmt.Sprintf("more than %d bytes (read cap)", readLimit)
	}
	ok := resp.StatusCode/100 == 2
	if !ok {
		body := strings.TrimSpace(string(data))
		if looksBinary(mt, data) {
			body = binarySummary(mt, data, truncated, readLimit)
		} else if len(body) > maxErrorBody {
			body = cutText(body, maxErrorBody) + "…"
		}
		msg := "HTTP " + resp.Status
		if body != "" {
			msg += ": " + body
		}
		return tool.ErrorResult("", msg)
	}
	if len(data) == 0 {
		return tool.TextResult("", "HTTP "+resp.Status+" (no content)")
	}
	if looksBinary(mt, data) {
		return tool.TextResult("", "binary response: "+binarySummary(mt, data, truncated, readLimit))
	}
	fits := maxText < 0 || len(data) <= maxText
	if (isJSONMedia(mt) || mt == "") && !truncated && fits && strictjson.Check(data, &strictjson.Options{MaxBytes: -1}) == nil {
		res := tool.Result{Content: []tool.Content{&tool.Text{Text: string(data)}}}
		if strictjson.KindOf(data) == strictjson.Object {
			res.StructuredContent = slices.Clone(data)
		}
		return res
	}
	text := string(data)
	if !fits {
		shown := cutText(text, maxText)
		return tool.TextResult("", shown+fmt.Sprintf("\n[response cut for the model: showing %d of %s, about %d of %d tokens; ask for less, with filters or paging]",
			len(shown), size, len(shown)/bytesPerToken, len(data)/bytesPerToken))
	}
	if truncated {
		text += fmt.Sprintf("\n[response truncated: larger than %d bytes]", readLimit)
	}
	return tool.TextResult("", text)
}

// looksBinary reports whether a body is no text a model can read: a
// media type that is not textual, invalid UTF-8, or control characters
// (a NUL, or more than one byte in 32) that JSON would escape into six
// bytes each.
func looksBinary(mt string, data []byte) bool {
	textual := mt == "" || strings.HasPrefix(mt, "text/") || isJSONMedia(mt) || strings.HasSuffix(mt, "+xml") || mt == "application/xml" ||
		mt == "application/javascript" || mt == "application/x-www-form-urlencoded" || mt == "application/yaml" ||
		strings.HasSuffix(mt, "+yaml") || mt == "application/x-ndjson" || mt == "application/graphql"
	if !textual {
		return true
	}
	// A body cut at the read cap may end inside a character.
	check := data
	for i := 0; i < utf8.UTFMax && len(check) > 0 && !utf8.Valid(check); i++ {
		check = check[:len(check)-1]
	}
	if !utf8.Valid(check) {
		return true
	}
	controls := 0
	for _, c := range data {
		if c == 0 {
			return true
		}
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			controls++
		}
	}
	return controls > len(data)/32
}

// binarySummary describes a binary body by type, size and SHA-256
// instead of handing its bytes on.
func binarySummary(mt string, data []byte, truncated bool, readLimit int64) string {
	sum := sha256.Sum256(data)
	if truncated {
		return fmt.Sprintf("%s, more than %d bytes (truncated), sha256 of the first %d bytes %x", orUnknown(mt), readLimit, len(data), sum)
	}
	return fmt.Sprintf("%s, %d bytes, sha256 %x", orUnknown(mt), len(data), sum)
}

// cutText returns the longest prefix of s of at most n bytes that ends
// at a character boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func orUnknown(mt string) string {
	if mt == "" {
		return "unknown type"
	}
	return mt
}
