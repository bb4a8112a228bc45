// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// builder turns a loaded document into an [API].
type builder struct {
	cfg      *Config
	r        *resolver
	root     *document
	version  string
	warnings []tool.Warning
	warned   map[string]bool
	rr       *renderer
	broken   int // operations left out because they are malformed
}

// brokenPart records that the part of the spec at ptr (a path item, an
// operation, a security scheme) is malformed and left out, with the
// error's own pointer when it names a deeper place, and returns nil. A
// refusal is not a malformation: an external $ref outside the allowed
// locations, or at an address the guard refuses, is returned, as is a
// cancelled context, and fails the load.
func (b *builder) brokenPart(ptr, what string, err error) error {
	if errors.Is(err, ErrRefNotAllowed) || errors.Is(err, ErrBlockedAddress) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	at := ptr
	if se, ok := errors.AsType[*SpecError](err); ok && se.Pointer != "" {
		at = se.Pointer
	}
	b.warnings = append(b.warnings, tw(at, "spec-part-dropped", fmt.Sprintf("%s at %s left out: %v", what, ptr, err)))
	return nil
}

// maxInputExpansion bounds how far $refs in one input schema are expanded,
// in bytes: no model reads a larger schema usefully.
const maxInputExpansion = 512 << 10

// fields indexes an object's members by name, so that reading many of
// them costs one pass over the object.
type fields map[string][]byte

// derefIndex is deref for objects whose members are read next: each
// object on the way is scanned once, for its $ref and its members both.
// order lists the member names in document order.
func (b *builder) derefIndex(raw []byte, doc *document, ptr string) (f fields, order []string, _ *document, _ string, err error) {
	for range 32 {
		f, order = fields{}, order[:0]
		_ = members(raw, func(k, v []byte) error {
			f[string(k)] = v
			order = append(order, string(k))
			return nil
		})
		ref, ok := f["$ref"]
		if !ok {
			return f, order, doc, ptr, nil
		}
		s, err := strictjson.Unquote(ref)
		if err != nil {
			return nil, nil, nil, "", &SpecError{Location: doc.shown, Pointer: ptr, Err: fmt.Errorf("%w: $ref is not a string", ErrInvalidSpec)}
		}
		t, err := b.r.resolve(s, doc, ptr)
		if err != nil {
			return nil, nil, nil, "", err
		}
		raw, doc, ptr = t.raw, t.doc, t.ptr
	}
	return nil, nil, nil, "", &SpecError{Location: doc.shown, Pointer: ptr, Err: fmt.Errorf("%w: $ref chain too long or circular", ErrUnresolvedRef)}
}

func (f fields) str(key string) string {
	v := f[key]
	if strictjson.KindOf(v) != strictjson.String {
		return ""
	}
	s, _ := strictjson.Unquote(v)
	return s
}

func tw(ptr, code, msg string) tool.Warning {
	return tool.Warning{Pointer: ptr, Code: code, Message: msg}
}

// warnOnce records w unless a warning with the same key was recorded:
// a recursive schema used by 300 operations is reported once.
func (b *builder) warnOnce(key string, w tool.Warning) {
	if b.warned == nil {
		b.warned = map[string]bool{}
	}
	if b.warned[key] {
		return
	}
	b.warned[key] = true
	b.warnings = append(b.warnings, w)
}

// methods are the operation keys of a path item, in the order OpenAPI
// lists them.
var methodKeys = map[string]string{
	"get": "GET", "put": "PUT", "post": "POST", "delete": "DELETE", "options": "OPTIONS",
	"head": "HEAD", "patch": "PATCH", "trace": "TRACE", "query": "QUERY",
}

// deref follows a chain of $refs from raw, returning the value reached and
// where it lives.
func (b *builder) deref(raw []byte, doc *document, ptr string) ([]byte, *document, string, error) {
	for range 32 {
		if strictjson.KindOf(raw) != strictjson.Object {
			return raw, doc, ptr, nil
		}
		ref := strictjson.Get(raw, "$ref")
		if ref == nil {
			return raw, doc, ptr, nil
		}
		s, err := strictjson.Unquote(ref)
		if err != nil {
			return nil, nil, "", &SpecError{Location: doc.shown, Pointer: ptr, Err: fmt.Errorf("%w: $ref is not a string", ErrInvalidSpec)}
		}
		t, err := b.r.resolve(s, doc, ptr)
		if err != nil {
			return nil, nil, "", err
		}
		raw, doc, ptr = t.raw, t.doc, t.ptr
	}
	return nil, nil, "", &SpecError{Location: doc.shown, Pointer: ptr, Err: fmt.Errorf("%w: $ref chain too long or circular", ErrUnresolvedRef)}
}

func str(obj []byte, key string) string {
	v := strictjson.Get(obj, key)
	if v == nil || strictjson.KindOf(v) != strictjson.String {
		return ""
	}
	s, _ := strictjson.Unquote(v)
	return s
}

func boolean(obj []byte, key string) (val, ok bool) {
	v := strictjson.Get(obj, key)
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func (b *builder) build(ctx context.Context) (*API, error) {
	b.r.ctx = ctx
	b.rr = &renderer{r: b.r, b: b, oas30: !strings.HasPrefix(b.version, "3.1") && !strings.HasPrefix(b.version, "3.2"),
		maxRecursion: b.cfg.MaxRecursion, maxDepth: 64, cache: map[cacheKey]cached{}}
	api := &API{OpenAPI: b.version, byName: map[string]*Operation{}}
	if info := b.root.lookup("/info"); strictjson.KindOf(info) == strictjson.Object {
		api.Title, api.Version = str(info, "title"), str(info, "version")
	}
	api.Servers = b.servers(b.root.lookup("/servers"), nil)
	if len(api.Servers) == 0 {
		api.Servers = b.servers(nil, nil)
	}
	var err error
	if api.schemes, err = b.schemes(); err != nil {
		return nil, err
	}
	rootSec := parseSecurity(b.root.lookup("/security"))

	paths := b.root.lookup("/paths")
	if paths != nil && strictjson.KindOf(paths) != strictjson.Object {
		return nil, &SpecError{Location: b.root.shown, Pointer: "/paths", Err: fmt.Errorf("%w: paths is not an object", ErrInvalidSpec)}
	}
	type pending struct {
		op         *Operation
		of         fields
		doc        *document
		ptr        string
		itemParams []byte
		idoc       *document
	}
	var ops []pending
	err = members(paths, func(pk, pv []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := string(pk)
		if !strings.HasPrefix(p, "/") {
			return nil // "x-" extensions of the paths object
		}
		ptr := "/paths/" + escPtr(p)
		if strictjson.KindOf(pv) != strictjson.Object {
			return b.brokenPart(ptr, "path item", &SpecError{Location: b.root.shown, Pointer: ptr, Err: fmt.Errorf("%w: path item is not an object", ErrInvalidSpec)})
		}
		itemf, itemOrder, idoc, iptr, err := b.derefIndex(pv, b.root, ptr)
		if err != nil {
			return b.brokenPart(ptr, "path item", err)
		}
		itemServers := b.servers(itemf["servers"], api.Servers)
		itemParams := itemf["parameters"]
		add := func(method string, ov []byte, optr string) error {
			if strictjson.KindOf(ov) != strictjson.Object {
				b.broken++
				return b.brokenPart(optr, "operation", &SpecError{Location: idoc.shown, Pointer: optr, Err: fmt.Errorf("%w: operation is not an object", ErrInvalidSpec)})
			}
			of, _, odoc, optr, err := b.derefIndex(ov, idoc, optr)
			if err != nil {
				b.broken++
				return b.brokenPart(optr, "operation", err)
			}
			op := &Operation{ID: of.str("operationId"), Method: method, Path: p, Safety: safetyOf(method)}
			op.Deprecated = string(of["deprecated"]) == "true"
			_ = elements(of["tags"], func(_ int, t []byte) error {
				if s, err := strictjson.Unquote(t); err == nil {
					op.Tags = append(op.Tags, s)
				}
				return nil
			})
			op.Servers = b.servers(of["servers"], itemServers)
			if sec := of["security"]; sec != nil {
				op.Security = parseSecurity(sec)
			} else {
				op.Security = rootSec
			}
			ops = append(ops, pending{op, of, odoc, optr, itemParams, idoc})
			return nil
		}
		for _, mk := range itemOrder {
			mv := itemf[mk]
			if m, ok := methodKeys[mk]; ok {
				if err := add(m, mv, iptr+"/"+mk); err != nil {
					return err
				}
			}
			if mk == "additionalOperations" { // OpenAPI 3.2
				err := members(mv, func(ak, av []byte) error {
					return add(strings.ToUpper(string(ak)), av, iptr+"/additionalOperations/"+escPtr(string(ak)))
				})
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	// Select, then name: a collision suffix depends on what was kept.
	taken := map[string]bool{}
	for _, p := range ops {
		op := p.op
		switch {
		case op.Deprecated && !b.cfg.IncludeDeprecated,
			!b.cfg.Include.matches(op),
			b.cfg.Exclude.matchesAny(op):
			api.Skipped++
			continue
		}
		if err := b.operation(op, p.of, p.doc, p.ptr, p.itemParams, p.idoc); err != nil {
			// A broken parameter or request body would make a tool that
			// sends the wrong request: the operation is left out, the
			// rest of the spec is not.
			if err := b.brokenPart(p.ptr, "operation "+op.Method+" "+op.Path, err); err != nil {
				return nil, err
			}
			api.Broken++
			continue
		}
		base := op.ID
		if base == "" {
			base = strings.ToLower(op.Method) + "_" + op.Path
		}
		op.Name = uniqueName(SanitizeName(base), taken)
		op.Definition.Name = op.Name
		api.Operations = append(api.Operations, op)
	}
	if b.cfg.IncludeGeneric {
		g := genericOperation(api.Servers, rootSec)
		g.Name = uniqueName(g.Name, taken)
		g.Definition.Name = g.Name
		api.Operations = append(api.Operations, g)
	}
	for _, op := range api.Operations {
		api.byName[op.Name] = op
	}
	api.Broken += b.broken
	api.Warnings = b.warnings
	return api, nil
}

// servers reads a servers array; with none, it returns inherit, or "/"
// when inherit is empty too.
func (b *builder) servers(raw []byte, inherit []Server) []Server {
	var out []Server
	_ = elements(raw, func(_ int, s []byte) error {
		u := str(s, "url")
		if u == "" {
			return nil
		}
		sv := Server{URL: u, Description: str(s, "description")}
		_ = members(strictjson.Get(s, "variables"), func(k, v []byte) error {
			if sv.Variables == nil {
				sv.Variables = map[string]ServerVariable{}
			}
			var vr ServerVariable
			vr.Default = str(v, "default")
			_ = elements(strictjson.Get(v, "enum"), func(_ int, e []byte) error {
				if s, err := strictjson.Unquote(e); err == nil {
					vr.Enum = append(vr.Enum, s)
				}
				return nil
			})
			sv.Variables[string(k)] = vr
			return nil
		})
		// A relative server URL is relative to where the spec came from.
		if loc := b.root.location; (strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")) && !strings.Contains(u, "://") {
			if base, err := url.Parse(loc); err == nil {
				if ru, err := url.Parse(u); err == nil {
					sv.URL = base.ResolveReference(ru).String()
				}
			}
		}
		out = append(out, sv)
		return nil
	})
	if len(out) == 0 {
		if len(inherit) > 0 {
			return inherit
		}
		return []Server{{URL: "/"}}
	}
	return out
}

func parseSecurity(raw []byte) []Requirement {
	if raw == nil {
		return nil
	}
	out := []Requirement{}
	_ = elements(raw, func(_ int, alt []byte) error {
		req := Requirement{}
		_ = members(alt, func(k, v []byte) error {
			u := SchemeUse{Scheme: string(k)}
			_ = elements(v, func(_ int, s []byte) error {
				if sc, err := strictjson.Unquote(s); err == nil {
					u.Scopes = append(u.Scopes, sc)
				}
				return nil
			})
			req = append(req, u)
			return nil
		})
		out = append(out, req)
		return nil
	})
	return out
}

// paramKey identifies a parameter: a name is unique within a location.
type paramKey struct{ name, in string }

// operation fills op's parameters, body and definition.
func (b *builder) operation(op *Operation, of fields, doc *document, ptr string, itemParams []byte, idoc *document) error {
	// Path-level parameters apply unless the operation redefines them.
	type rawParam struct {
		raw []byte
		doc *document
		ptr string
	}
	var order []paramKey
	params := map[paramKey]rawParam{}
	collect := func(list []byte, d *document, lptr string) error {
		return elements(list, func(i int, pv []byte) error {
			pptr := fmt.Sprintf("%s/%d", lptr, i)
			p, pd, pp, err := b.deref(pv, d, pptr)
			if err != nil {
				return err
			}
			k := paramKey{str(p, "name"), str(p, "in")}
			if k.name == "" || k.in == "" {
				b.warnOnce("param:"+pd.location+"#"+pp, tw(pp, "parameter-invalid", "parameter without name or in; skipped"))
				return nil
			}
			if _, ok := params[k]; !ok {
				order = append(order, k)
			}
			params[k] = rawParam{p, pd, pp}
			return nil
		})
	}
	iptr := strings.TrimSuffix(ptr, "/"+strings.ToLower(op.Method))
	if err := collect(itemParams, idoc, iptr+"/parameters"); err != nil {
		return err
	}
	if err := collect(of["parameters"], doc, ptr+"/parameters"); err != nil {
		return err
	}

	props := newProps()
	// Path parameters come first, then query, header and cookie: the order
	// a person reads a request in.
	for _, in := range []string{"path", "query", "header", "cookie"} {
		for _, k := range order {
			if k.in != in {
				continue
			}
			rp := params[k]
			if in == "header" && (strings.EqualFold(k.name, "Accept") || strings.EqualFold(k.name, "Content-Type") || strings.EqualFold(k.name, "Authorization")) {
				continue // OpenAPI: these come from the spec's media types and security
			}
			if err := b.param(op, props, k, rp.raw, rp.doc, rp.ptr); err != nil {
				return err
			}
		}
	}
	if rb := of["requestBody"]; rb != nil {
		if err := b.body(op, props, rb, doc, ptr+"/requestBody"); err != nil {
			return err
		}
	}

	summary, desc := strings.TrimSpace(of.str("summary")), strings.TrimSpace(of.str("description"))
	d := &op.Definition
	d.Title = summary
	d.Description = description(summary, desc, op.Method+" "+op.Path, b.cfg.MaxDescription)
	d.InputSchema = props.schema()
	d.OutputSchema = b.output(op, of["responses"], doc, ptr)
	d.Annotations = annotationsFor(op.Method, summary)
	d.Behavior = capabilityFor(op.Method)
	d.Extensions = operationExt(op.Method, op.Path, op.ID)
	if len(op.Security) > 0 {
		var perms []string
		for _, alt := range op.Security {
			for _, u := range alt {
				perms = append(perms, u.Scopes...)
			}
		}
		if len(perms) > 0 {
			slices.Sort(perms)
			d.Security = &tool.Security{RequiredPermissions: slices.Compact(perms)}
		}
	}
	return nil
}

// description joins summary and description, or falls back to the
// request line, and trims the result to max runes.
func description(summary, desc, fallback string, max int) string {
	s := summary
	switch {
	case s == "":
		s = desc
	case desc != "" && desc != summary:
		s = summary + "\n\n" + desc
	}
	if s == "" {
		s = fallback
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max-1 {
				s = strings.TrimRight(s[:i], " \n\t") + "…"
				break
			}
			n++
		}
	}
	return s
}

func (b *builder) param(op *Operation, props *props, k paramKey, raw []byte, doc *document, ptr string) error {
	p := &Param{Name: k.name, In: k.in, Style: str(raw, "style")}
	switch k.in {
	case "path", "query", "header", "cookie":
	default:
		b.warnOnce("in:"+doc.location+"#"+ptr, tw(ptr, "parameter-invalid", fmt.Sprintf("parameter location %q is not supported; skipped", k.in)))
		return nil
	}
	if p.Style == "" {
		p.Style = "form"
		if k.in == "path" || k.in == "header" {
			p.Style = "simple"
		}
	}
	explode, ok := boolean(raw, "explode")
	if !ok {
		explode = p.Style == "form"
	}
	p.Explode = explode
	p.AllowReserved, _ = boolean(raw, "allowReserved")
	p.Required, _ = boolean(raw, "required")
	if k.in == "path" {
		p.Required = true
	}
	schemaRaw, sptr := strictjson.Get(raw, "schema"), ptr+"/schema"
	if schemaRaw == nil {
		_ = members(strictjson.Get(raw, "content"), func(mt, mv []byte) error {
			if p.ContentType == "" {
				p.ContentType = string(mt)
				schemaRaw = strictjson.Get(mv, "schema")
				sptr = ptr + "/content/" + escPtr(string(mt)) + "/schema"
			}
			return nil
		})
	}
	if schemaRaw == nil {
		schemaRaw = []byte(`{"type":"string"}`)
	}
	rendered := b.rr.renderTop(schemaRaw, doc, sptr, modeInput, maxInputExpansion, 2, b.cfg.maxNesting())
	p.Property = props.add(k.name, k.in, rendered, str(raw, "description"), p.Required)
	op.Params = append(op.Params, p)
	return nil
}

// mediaRank orders request media types by how well toolgate can send
// them; lower is better.
func mediaRank(mt string) int {
	m := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	switch {
	case m == "application/json":
		return 0
	case strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "/json"):
		return 1
	case m == "application/x-www-form-urlencoded":
		return 2
	case m == "multipart/form-data":
		return 3
	case strings.HasPrefix(m, "text/"):
		return 4
	case m == "application/octet-stream":
		return 5
	case m == "*/*":
		return 6
	}
	return 7
}

func isJSONMedia(mt string) bool { return mediaRank(mt) <= 1 }

func (b *builder) body(op *Operation, props *props, rbRaw []byte, doc *document, ptr string) error {
	rb, doc, ptr, err := b.deref(rbRaw, doc, ptr)
	if err != nil {
		return err
	}
	content := strictjson.Get(rb, "content")
	var best string
	var bestSchema []byte
	rank := 99
	_ = members(content, func(k, v []byte) error {
		if r := mediaRank(string(k)); r < rank {
			rank, best, bestSchema = r, string(k), strictjson.Get(v, "schema")
		}
		return nil
	})
	if best == "" {
		return nil
	}
	body := &Body{MediaType: best}
	if best == "*/*" {
		body.MediaType = "application/json"
	}
	body.Required, _ = boolean(rb, "required")
	mptr := ptr + "/content/" + escPtr(best)
	_ = members(strictjson.Get(strictjson.Get(content, best), "encoding"), func(k, v []byte) error {
		if ct := str(v, "contentType"); ct != "" {
			if body.Encoding == nil {
				body.Encoding = map[string]string{}
			}
			body.Encoding[string(k)] = ct
		}
		return nil
	})
	if bestSchema == nil {
		bestSchema = []byte(`{}`)
		if rank >= 4 {
			bestSchema = []byte(`{"type":"string"}`)
		}
	}
	sptr := mptr + "/schema"
	op.Body = body
	if rank <= 3 {
		// Render the body as if it were the input object itself: a plain
		// object's properties then sit where they will once lifted.
		whole := b.rr.renderTop(bestSchema, doc, sptr, modeInput, maxInputExpansion, 1, b.cfg.maxNesting())
		if flattenable(whole) {
			required := map[string]bool{}
			_ = elements(strictjson.Get(whole, "required"), func(_ int, e []byte) error {
				if s, err := strictjson.Unquote(e); err == nil {
					required[s] = true
				}
				return nil
			})
			return members(strictjson.Get(whole, "properties"), func(k, v []byte) error {
				name := string(k)
				prop := props.add(name, "body", v, "", required[name])
				body.Fields = append(body.Fields, Field{Property: prop, Name: name, File: rank == 3 && isFile(v), Nullable: allowsNull(v), schema: v})
				return nil
			})
		}
	}
	rendered := b.rr.renderTop(bestSchema, doc, sptr, modeInput, maxInputExpansion, 2, b.cfg.maxNesting())
	body.Property = props.add("body", "body", rendered, str(rb, "description"), body.Required)
	body.schema = rendered
	return nil
}

// flattenable reports whether a body schema is a plain object whose
// properties can become inputs of their own.
func flattenable(s []byte) bool {
	if strictjson.KindOf(s) != strictjson.Object || strictjson.KindOf(strictjson.Get(s, "properties")) != strictjson.Object {
		return false
	}
	if t := str(s, "type"); t != "" && t != "object" {
		return false
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "not", "if", "patternProperties"} {
		if strictjson.Get(s, k) != nil {
			return false
		}
	}
	if ap := strictjson.Get(s, "additionalProperties"); ap != nil && strictjson.KindOf(ap) == strictjson.Object {
		return false
	}
	return true
}

// allowsNull reports whether a rendered schema admits null: a "null"
// type, a null enum value, or a null alternative.
func allowsNull(s []byte) bool {
	null := false
	_ = members(s, func(k, v []byte) error {
		switch string(k) {
		case "type":
			if string(v) == `"null"` {
				null = true
			}
			_ = elements(v, func(_ int, e []byte) error {
				null = null || string(e) == `"null"`
				return nil
			})
		case "enum":
			null = null || hasNull(v)
		case "anyOf", "oneOf":
			_ = elements(v, func(_ int, e []byte) error {
				null = null || allowsNull(e)
				return nil
			})
		}
		return nil
	})
	return null
}

// isFile reports whether a rendered multipart property carries file
// contents: binary strings were rendered with contentEncoding.
func isFile(s []byte) bool {
	if str(s, "type") == "array" {
		s = strictjson.Get(s, "items")
	}
	return str(s, "contentEncoding") != "" || str(s, "contentMediaType") != ""
}

// output returns the schema of the first 2xx JSON response when it is an
// object (MCP requires output schemas to be objects), and sets op.Accept.
func (b *builder) output(op *Operation, resp []byte, doc *document, ptr string) []byte {
	var codes []string
	byCode := map[string][]byte{}
	_ = members(resp, func(k, v []byte) error {
		c := string(k)
		if len(c) == 3 && c[0] == '2' {
			codes = append(codes, c)
			byCode[c] = v
		}
		return nil
	})
	sort.Strings(codes) // "200" < "201" < "2XX"
	var accept []string
	var out []byte
	for _, c := range codes {
		rptr := ptr + "/responses/" + c
		rf, _, rdoc, rptr, err := b.derefIndex(byCode[c], doc, rptr)
		if err != nil {
			b.warnOnce("resp:"+rptr, tw(rptr, "unresolved-ref", err.Error()))
			continue
		}
		_ = members(rf["content"], func(mt, mv []byte) error {
			m := string(mt)
			if !slices.Contains(accept, m) {
				accept = append(accept, m)
			}
			if out != nil || !isJSONMedia(m) {
				return nil
			}
			s := strictjson.Get(mv, "schema")
			if s == nil {
				return nil
			}
			sptr := rptr + "/content/" + escPtr(m) + "/schema"
			budget := b.cfg.MaxOutputSchemaBytes + 1
			if budget <= 0 {
				budget = maxInputExpansion
			}
			rendered := b.rr.renderTop(s, rdoc, sptr, modeOutput, budget, 1, 0)
			if !objectSchema(rendered) {
				out = []byte{} // the first JSON response decides; it is not an object
				return nil
			}
			if max := b.cfg.MaxOutputSchemaBytes; max > 0 && (len(rendered) > max || b.rr.overBudget) {
				b.warnings = append(b.warnings, tw(sptr, "output-schema-dropped", fmt.Sprintf("output schema of %s %s is over the %d-byte limit; dropped", op.Method, op.Path, max)))
				out = []byte{}
				return nil
			}
			out = rendered
			return nil
		})
	}
	op.Accept = strings.Join(accept, ", ")
	if len(out) == 0 {
		return nil
	}
	return out
}

func objectSchema(s []byte) bool {
	if strictjson.KindOf(s) != strictjson.Object {
		return false
	}
	t := strictjson.Get(s, "type")
	if t == nil {
		return strictjson.Get(s, "properties") != nil
	}
	return string(t) == `"object"`
}

// props assembles a tool's input object schema.
type props struct {
	names    map[string]bool
	buf      []byte
	required []string
}

func newProps() *props { return &props{names: map[string]bool{}} }

// add adds a property for the parameter name found in location in, with
// the rendered schema, and returns the property name used: the name
// sanitized, suffixed with its location when another location took it.
func (p *props) add(name, in string, rendered []byte, desc string, required bool) string {
	base := SanitizeProperty(name)
	prop := base
	if p.names[prop] {
		prop = SanitizeProperty(base + "_" + in)
		for i := 2; p.names[prop]; i++ {
			prop = SanitizeProperty(fmt.Sprintf("%s_%s%d", base, in, i))
		}
	}
	p.names[prop] = true
	if len(p.buf) > 0 {
		p.buf = append(p.buf, ',')
	}
	p.buf = strictjson.AppendQuote(p.buf, prop)
	p.buf = append(p.buf, ':', '{')
	first := true
	if desc != "" {
		p.buf = appendKey(p.buf, &first, "description")
		p.buf = strictjson.AppendQuote(p.buf, desc)
	}
	if strictjson.KindOf(rendered) == strictjson.Object {
		_ = members(rendered, func(k, v []byte) error {
			if (desc != "" && string(k) == "description") || string(k) == "x-toolgate-in" || string(k) == "x-toolgate-name" {
				return nil
			}
			p.buf = appendKey(p.buf, &first, string(k))
			p.buf = append(p.buf, v...)
			return nil
		})
	}
	p.buf = appendKey(p.buf, &first, "x-toolgate-in")
	p.buf = strictjson.AppendQuote(p.buf, in)
	if prop != name {
		p.buf = appendKey(p.buf, &first, "x-toolgate-name")
		p.buf = strictjson.AppendQuote(p.buf, name)
	}
	p.buf = append(p.buf, '}')
	if required {
		p.required = append(p.required, prop)
	}
	return prop
}

func (p *props) schema() []byte {
	out := make([]byte, 0, len(p.buf)+64)
	out = append(out, `{"type":"object","properties":{`...)
	out = append(out, p.buf...)
	out = append(out, '}')
	if len(p.required) > 0 {
		out = append(out, `,"required":[`...)
		for i, r := range p.required {
			if i > 0 {
				out = append(out, ',')
			}
			out = strictjson.AppendQuote(out, r)
		}
		out = append(out, ']')
	}
	out = append(out, `,"additionalProperties":false}`...)
	return out
}
