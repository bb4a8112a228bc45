// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/internal/yamljson"
	"github.com/toolgate/toolgate/tool"
)

// Errors of loading, matched with errors.Is.
var (
	// ErrInvalidSpec reports a document that is not a usable Swagger 2.0 or
	// OpenAPI 3.x description.
	ErrInvalidSpec = errors.New("openapi: invalid spec")
	// ErrRefNotAllowed reports an external $ref, or a spec URL, outside the
	// locations the [Config] allows.
	ErrRefNotAllowed = errors.New("openapi: reference not allowed")
	// ErrUnresolvedRef reports a $ref that names nothing.
	ErrUnresolvedRef = errors.New("openapi: unresolved $ref")
)

// SpecError is a problem at one place of a spec.
type SpecError struct {
	// Location is the file or URL of the document, empty for bytes.
	Location string
	// Pointer is the JSON Pointer of the value at fault.
	Pointer string
	Err     error
}

// Error says where and what: "file: /pointer: problem".
func (e *SpecError) Error() string {
	var b strings.Builder
	if e.Location != "" {
		b.WriteString(e.Location)
		b.WriteString(": ")
	}
	if e.Pointer != "" {
		b.WriteString(e.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the sentinel or cause, for errors.Is.
func (e *SpecError) Unwrap() error { return e.Err }

// DefaultMaxSpecBytes is the largest spec document read when
// [Config.MaxSpecBytes] is zero.
const DefaultMaxSpecBytes = 64 << 20

// Load reads a spec from data (JSON or YAML, Swagger 2.0 or OpenAPI 3.x)
// and builds its operations. location names the document in messages and
// is the base of relative external $refs; it may be empty.
func Load(ctx context.Context, data []byte, location string, cfg *Config) (*API, error) {
	c := cfg.withDefaults()
	return c.load(ctx, data, location)
}

// LoadFile reads the spec in the file at path; see [Load].
func LoadFile(ctx context.Context, path string, cfg *Config) (*API, error) {
	c := cfg.withDefaults()
	data, err := c.readFile(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return c.load(ctx, data, abs, path)
}

// LoadURL fetches the spec at u, which [Config.AllowRemote] must allow, and
// reads it; see [Load]. The fetch goes through the same address guard as
// calls: private addresses are refused unless [Config.AllowPrivate].
func LoadURL(ctx context.Context, u string, cfg *Config) (*API, error) {
	c := cfg.withDefaults()
	if !c.remoteAllowed(u) {
		return nil, fmt.Errorf("%w: spec URL %s", ErrRefNotAllowed, u)
	}
	data, err := c.fetch(ctx, u)
	if err != nil {
		return nil, err
	}
	return c.load(ctx, data, u)
}

func (c *Config) readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, c.maxSpec()+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > c.maxSpec() {
		return nil, &SpecError{Location: path, Err: fmt.Errorf("%w: larger than %d bytes", ErrInvalidSpec, c.maxSpec())}
	}
	return data, nil
}

func (c *Config) maxSpec() int64 {
	if c.MaxSpecBytes < 0 {
		return 1 << 40
	}
	return int64(c.MaxSpecBytes)
}

// remoteAllowed reports whether u starts with one of the allowed remote
// prefixes. Prefixes are compared on whole URLs, so "https://a.example/"
// does not allow "https://a.example.evil/".
func (c *Config) remoteAllowed(u string) bool {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.User != nil {
		return false
	}
	for _, p := range c.AllowRemote {
		if p == "*" {
			return true
		}
		if strings.HasPrefix(u, p) && (strings.HasSuffix(p, "/") || len(u) == len(p) || strings.ContainsRune("/?#", rune(u[len(p)]))) {
			return true
		}
	}
	return false
}

func (c *Config) fetch(ctx context.Context, u string) ([]byte, error) {
	g := &guard{allowPrivate: c.AllowPrivate}
	client := &http.Client{Transport: g.transport(), Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errTooManyRedirects
			}
			if !c.remoteAllowed(req.URL.String()) {
				return fmt.Errorf("%w: redirect to %s", ErrRefNotAllowed, req.URL.Redacted())
			}
			return g.checkHost(req.URL.Hostname())
		}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: %s", u, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxSpec()+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > c.maxSpec() {
		return nil, &SpecError{Location: u, Err: fmt.Errorf("%w: larger than %d bytes", ErrInvalidSpec, c.maxSpec())}
	}
	return data, nil
}

// load reads one root document. name, when given, is what messages call it.
func (c *Config) load(ctx context.Context, data []byte, location string, name ...string) (*API, error) {
	shown := location
	if len(name) > 0 {
		shown = name[0]
	}
	js, err := toJSON(data)
	if err != nil {
		return nil, &SpecError{Location: shown, Err: err}
	}
	if strictjson.KindOf(js) != strictjson.Object {
		return nil, &SpecError{Location: shown, Err: fmt.Errorf("%w: the document is not an object", ErrInvalidSpec)}
	}
	var warnings []tool.Warning
	brokenOps := 0
	version := ""
	var swagger, openapi []byte
	_ = members(js, func(k, v []byte) error {
		switch string(k) {
		case "swagger":
			swagger = v
		case "openapi":
			openapi = v
		}
		return nil
	})
	if v := swagger; v != nil {
		s, _ := strictjson.Unquote(v)
		if s != "2.0" {
			return nil, &SpecError{Location: shown, Pointer: "/swagger", Err: fmt.Errorf("%w: unsupported swagger version %q", ErrInvalidSpec, s)}
		}
		version = "2.0"
		converted, cerr := convert2(js)
		if cerr != nil {
			// Repair only what failed: a sound document is read once.
			fixed, repaired, n := repair2(js)
			if len(repaired) > 0 {
				if converted, err = convert2(fixed); err == nil {
					cerr = nil
					warnings = append(warnings, repaired...)
					brokenOps = n
				}
			}
		}
		if cerr != nil {
			return nil, &SpecError{Location: shown, Err: cerr}
		}
		js = converted
	} else if v := openapi; v != nil {
		s := scalar(v) // YAML reads "openapi: 3.0" as a number
		if !strings.HasPrefix(s, "3.0") && !strings.HasPrefix(s, "3.1") && !strings.HasPrefix(s, "3.2") {
			return nil, &SpecError{Location: shown, Pointer: "/openapi", Err: fmt.Errorf("%w: unsupported openapi version %q", ErrInvalidSpec, s)}
		}
		version = s
	} else {
		return nil, &SpecError{Location: shown, Err: fmt.Errorf("%w: neither \"openapi\" nor \"swagger\" names a version", ErrInvalidSpec)}
	}
	if c.Validate {
		warnings = append(warnings, validate(ctx, js)...)
	}
	r := &resolver{cfg: c, docs: map[string]*document{}}
	root := r.addDoc(location, shown, js)
	b := &builder{cfg: c, r: r, root: root, version: version, warnings: warnings, broken: brokenOps}
	return b.build(ctx)
}

// toJSON returns data as checked JSON: JSON input as is, YAML converted.
func toJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if err := strictjson.Check(trimmed, &strictjson.Options{MaxBytes: -1, MaxDepth: 1024}); err != nil {
			if len(trimmed) > 0 && trimmed[0] == '[' {
				return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
			}
			// Flow-style YAML also starts with '{'; try it before giving up.
			if js, yerr := yamljson.Convert(data, &yamljson.Options{MaxBytes: DefaultMaxSpecBytes}); yerr == nil {
				return js, nil
			}
			return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
		}
		return trimmed, nil
	}
	js, err := yamljson.Convert(data, &yamljson.Options{MaxBytes: DefaultMaxSpecBytes})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	return js, nil
}

// convert2 turns a Swagger 2.0 document into OpenAPI 3.0 JSON with
// kin-openapi's converter, which moves body and formData parameters into
// request bodies, host and basePath into servers, and definitions into
// components.
func convert2(js []byte) (out []byte, err error) {
	// The converter dereferences what it assumes present (a path item
	// that is null, say); a panic on input is an invalid spec, not a crash.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: converting swagger 2.0: malformed document (%v)", ErrInvalidSpec, r)
		}
	}()
	var d2 openapi2.T
	if err := json.Unmarshal(js, &d2); err != nil {
		return nil, fmt.Errorf("%w: swagger 2.0: %w", ErrInvalidSpec, err)
	}
	d3, err := openapi2conv.ToV3(&d2)
	if err != nil {
		return nil, fmt.Errorf("%w: converting swagger 2.0: %w", ErrInvalidSpec, err)
	}
	out, err = json.Marshal(d3)
	if err != nil {
		return nil, fmt.Errorf("%w: converting swagger 2.0: %w", ErrInvalidSpec, err)
	}
	return out, nil
}

// validate checks the document with kin-openapi, example values excepted,
// and reports what it finds as warnings: real specs break the letter of
// the standard (duplicate operation ids, stray keywords) and still
// describe usable APIs.
func validate(ctx context.Context, js []byte) []tool.Warning {
	l := openapi3.NewLoader()
	l.Context = ctx
	code := "spec-unloadable"
	doc, err := l.LoadFromData(js)
	if err == nil {
		code = "spec-invalid"
		err = doc.Validate(ctx, openapi3.DisableExamplesValidation())
	}
	if err == nil {
		return nil
	}
	msg := err.Error()
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return []tool.Warning{{Code: code, Message: "kin-openapi: " + msg}}
}
