// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// document is one loaded JSON document: the root spec or a file an
// external $ref named.
type document struct {
	location string // absolute path or URL; "" for bytes
	shown    string // the name used in messages
	data     []byte
	// index caches the members of objects looked up by pointer, so that
	// resolving thousands of refs into a 4 MB document stays linear.
	index map[string]map[string][]byte
}

// resolver finds what $refs point at, loading external documents only from
// allowed locations.
type resolver struct {
	cfg  *Config
	ctx  context.Context
	docs map[string]*document
}

func (r *resolver) addDoc(location, shown string, data []byte) *document {
	d := &document{location: location, shown: shown, data: data, index: map[string]map[string][]byte{}}
	r.docs[location] = d
	return d
}

// target is a resolved reference: the raw value, the document it is in,
// and a key naming it uniquely for cycle detection and caching.
type target struct {
	raw []byte
	doc *document
	key string
	ptr string
}

// resolve returns what ref, found in doc at pointer at, refers to.
func (r *resolver) resolve(ref string, doc *document, at string) (target, error) {
	loc, frag, _ := strings.Cut(ref, "#")
	d := doc
	if loc != "" {
		var err error
		d, err = r.external(loc, doc, at)
		if err != nil {
			return target{}, err
		}
	}
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		ptr = frag
	}
	if ptr != "" && ptr[0] != '/' {
		return target{}, &SpecError{Location: doc.shown, Pointer: at, Err: fmt.Errorf("%w: %q is not a JSON Pointer", ErrUnresolvedRef, ref)}
	}
	raw := d.lookup(ptr)
	if raw == nil {
		return target{}, &SpecError{Location: doc.shown, Pointer: at, Err: fmt.Errorf("%w: %q names nothing", ErrUnresolvedRef, ref)}
	}
	return target{raw: raw, doc: d, key: d.location + "#" + ptr, ptr: ptr}, nil
}

// lookup returns the value at the JSON Pointer ptr, or nil.
func (d *document) lookup(ptr string) []byte {
	cur := d.data
	if ptr == "" {
		return cur
	}
	prefix := ""
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch strictjson.KindOf(cur) {
		case strictjson.Object:
			idx, ok := d.index[prefix]
			if !ok {
				idx = map[string][]byte{}
				_ = members(cur, func(k, v []byte) error {
					idx[string(k)] = v
					return nil
				})
				d.index[prefix] = idx
			}
			cur = idx[tok]
		case strictjson.Array:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 {
				return nil
			}
			var found []byte
			_ = elements(cur, func(i int, v []byte) error {
				if i == n {
					found = v
				}
				return nil
			})
			cur = found
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
		prefix += "/" + escPtr(tok)
	}
	return cur
}

// external loads the document loc names, relative to from, when the
// config allows its location.
func (r *resolver) external(loc string, from *document, at string) (*document, error) {
	deny := func(what string) error {
		return &SpecError{Location: from.shown, Pointer: at, Err: fmt.Errorf("%w: %s", ErrRefNotAllowed, what)}
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, deny(fmt.Sprintf("%q is not a URL", loc))
	}
	var abs string
	remote := false
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		abs, remote = u.String(), true
	case u.Scheme != "" && u.Scheme != "file":
		return nil, deny(fmt.Sprintf("scheme %q in %q", u.Scheme, loc))
	case strings.HasPrefix(from.location, "http://") || strings.HasPrefix(from.location, "https://"):
		base, _ := url.Parse(from.location)
		abs, remote = base.ResolveReference(u).String(), true
	default:
		p := u.Path
		if !filepath.IsAbs(p) {
			if from.location == "" {
				return nil, deny(fmt.Sprintf("relative reference %q in a spec read from bytes", loc))
			}
			p = filepath.Join(filepath.Dir(from.location), p)
		}
		abs = filepath.Clean(p)
	}
	if d, ok := r.docs[abs]; ok {
		return d, nil
	}
	var data []byte
	if remote {
		if !r.cfg.remoteAllowed(abs) {
			return nil, deny(fmt.Sprintf("%s is not an allowed remote location", abs))
		}
		ctx := r.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		data, err = r.cfg.fetch(ctx, abs)
	} else {
		if !r.cfg.dirAllowed(abs) {
			return nil, deny(fmt.Sprintf("%s is outside the allowed directories", abs))
		}
		data, err = r.cfg.readFile(abs)
	}
	if err != nil {
		return nil, &SpecError{Location: from.shown, Pointer: at, Err: fmt.Errorf("%w: %w", ErrUnresolvedRef, err)}
	}
	js, err := toJSON(data)
	if err != nil {
		return nil, &SpecError{Location: abs, Err: err}
	}
	return r.addDoc(abs, abs, js), nil
}

// dirAllowed reports whether the file at abs lies inside one of the
// allowed directories, after following symbolic links.
func (c *Config) dirAllowed(abs string) bool {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if _, serr := os.Stat(abs); serr != nil {
			real = abs
		} else {
			return false
		}
	}
	for _, dir := range c.AllowRefDirs {
		d, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		if rd, err := filepath.EvalSymlinks(d); err == nil {
			d = rd
		}
		rel, err := filepath.Rel(d, real)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
