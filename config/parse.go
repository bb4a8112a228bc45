// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/internal/yamljson"
)

// ErrInvalid is matched by every error that says the config itself is
// wrong (as opposed to a source that could not be reached or a database
// that could not be opened): errors.Is(err, ErrInvalid).
var ErrInvalid = errors.New("config: invalid")

// Error is a config error at a key of the file.
type Error struct {
	// File is the name given to [Parse]; empty for a File built in Go.
	File string
	// Line and Column are 1-based; zero when unknown.
	Line, Column int
	// Path is the key path, "policy.rules[0].effect"; empty for the file
	// as a whole.
	Path string
	// Err says what is wrong.
	Err error
}

// Error returns "file:line:col: path: message", leaving out what is
// unknown.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalid].
func (e *Error) Is(target error) bool { return target == ErrInvalid }

type position struct{ line, col int }

// maxNodes bounds the nodes the decoder visits, aliases expanded, so a
// file of nested aliases fails instead of exhausting memory.
const maxNodes = 1 << 20

// Parse reads a config file and checks it with [File.Check]. name is the
// file's name in errors. Every error is an [*Error] naming the line,
// column and key: unknown keys, values of the wrong type, durations that
// do not parse, rules whose condition does not compile.
func Parse(data []byte, name string) (*File, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		// yaml.v3's syntax errors carry their line only in the text.
		return nil, &Error{File: name, Err: fmt.Errorf("not YAML: %w", err)}
	}
	f := &File{name: name, pos: map[string]position{}}
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		d := &decoder{file: name, pos: f.pos}
		if err := d.decode(root.Content[0], reflect.ValueOf(f).Elem(), "", 0); err != nil {
			return nil, err
		}
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return f, nil
}

type decoder struct {
	file  string
	pos   map[string]position
	nodes int
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	rawType      = reflect.TypeFor[json.RawMessage]()
)

func (d *decoder) errAt(n *yaml.Node, path string, format string, args ...any) error {
	return &Error{File: d.file, Line: n.Line, Column: n.Column, Path: path, Err: fmt.Errorf(format, args...)}
}

// decode sets v from n, refusing keys v has no field for and values of
// the wrong kind. path is n's key path.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, depth int) error {
	d.nodes++
	if d.nodes > maxNodes || depth > 100 {
		return d.errAt(n, path, "too large or too deeply nested (aliases expanded)")
	}
	if n.Kind == yaml.AliasNode {
		return d.decode(n.Alias, v, path, depth+1)
	}
	if _, ok := d.pos[path]; !ok || n.Kind == yaml.ScalarNode {
		d.pos[path] = position{n.Line, n.Column}
	}
	t := v.Type()
	switch {
	case t == rawType:
		if isNull(n) {
			return nil
		}
		js, err := yamljson.FromNode(n, &yamljson.Options{MaxNodes: maxNodes, MaxDepth: 100})
		if err != nil {
			if ye, ok := errors.AsType[*yamljson.Error](err); ok && ye.Line > 0 {
				return &Error{File: d.file, Line: ye.Line, Column: ye.Column, Path: path, Err: ye.Err}
			}
			return d.errAt(n, path, "%w", err)
		}
		v.SetBytes(js)
		return nil
	case t == durationType:
		s, err := d.scalar(n, path)
		if err != nil || s == "" {
			return err
		}
		dur, perr := time.ParseDuration(s)
		if perr != nil {
			return d.errAt(n, path, "%q is not a duration such as 30s or 1m", s)
		}
		v.SetInt(int64(dur))
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		// A key present with any value, {} or nothing at all, sets it.
		p := reflect.New(t.Elem())
		if !isNull(n) {
			if err := d.decode(n, p.Elem(), path, depth+1); err != nil {
				return err
			}
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return d.errAt(n, path, "want a mapping of keys, not %s", kindName(n))
		}
		return d.fields(n, v, path, depth, map[string]bool{})
	case reflect.Slice:
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return d.errAt(n, path, "want a list, not %s", kindName(n))
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, c := range n.Content {
			if err := d.decode(c, s.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode || t.Key().Kind() != reflect.String {
			return d.errAt(n, path, "want a mapping, not %s", kindName(n))
		}
		m := reflect.MakeMapWithSize(t, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return d.errAt(k, path, "a key must be a plain name")
			}
			kv := reflect.ValueOf(k.Value).Convert(t.Key())
			if m.MapIndex(kv).IsValid() {
				return d.errAt(k, joinKey(path, k.Value), "key given twice")
			}
			e := reflect.New(t.Elem()).Elem()
			if err := d.decode(n.Content[i+1], e, joinKey(path, k.Value), depth+1); err != nil {
				return err
			}
			m.SetMapIndex(kv, e)
		}
		v.Set(m)
		return nil
	case reflect.String:
		s, err := d.scalar(n, path)
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Int, reflect.Int64:
		s, err := d.scalar(n, path)
		if err != nil || s == "" {
			return err
		}
		i, perr := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if perr != nil || n.ShortTag() != "!!int" {
			return d.errAt(n, path, "%q is not a whole number", s)
		}
		v.SetInt(i)
		return nil
	case reflect.Float64:
		s, err := d.scalar(n, path)
		if err != nil || s == "" {
			return err
		}
		f, perr := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if tag := n.ShortTag(); perr != nil || tag != "!!int" && tag != "!!float" || math.IsInf(f, 0) || math.IsNaN(f) {
			return d.errAt(n, path, "%q is not a number", s)
		}
		v.SetFloat(f)
		return nil
	case reflect.Bool:
		s, err := d.scalar(n, path)
		if err != nil || s == "" {
			return err
		}
		b, perr := strconv.ParseBool(strings.ToLower(s))
		if perr != nil || n.ShortTag() != "!!bool" {
			return d.errAt(n, path, "%q is not true or false", s)
		}
		v.SetBool(b)
		return nil
	}
	return d.errAt(n, path, "cannot hold a value of Go type %s", t)
}

// fields sets the fields of struct v from the mapping n. Keys in seen
// were set already: by n itself they are an error, by a merge ("<<: *x")
// they are skipped, as YAML's merge keys never override.
func (d *decoder) fields(n *yaml.Node, v reflect.Value, path string, depth int, seen map[string]bool) error {
	var merges []*yaml.Node
	own := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, val)
			continue
		}
		kp := joinKey(path, k.Value)
		if k.Kind != yaml.ScalarNode {
			return d.errAt(k, path, "a key must be a plain name")
		}
		if own[k.Value] {
			return d.errAt(k, kp, "key given twice")
		}
		own[k.Value] = true
		if seen[k.Value] {
			continue
		}
		f, ok := fieldByTag(v.Type(), k.Value)
		if !ok {
			return d.errAt(k, kp, "unknown key %q", k.Value)
		}
		d.pos[kp] = position{k.Line, k.Column}
		if err := d.decode(val, v.FieldByIndex(f.Index), kp, depth+1); err != nil {
			return err
		}
	}
	for k := range own {
		seen[k] = true
	}
	for _, m := range merges {
		d.nodes++
		if m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, src := range srcs {
			if src.Kind == yaml.AliasNode {
				src = src.Alias
			}
			if src.Kind != yaml.MappingNode || depth > 100 || d.nodes > maxNodes {
				return d.errAt(src, path, "a merge (<<) needs a mapping")
			}
			if err := d.fields(src, v, path, depth+1, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalar returns n's text; null is "".
func (d *decoder) scalar(n *yaml.Node, path string) (string, error) {
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", d.errAt(n, path, "want a single value, not %s", kindName(n))
	}
	return n.Value, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldByTag returns the field of struct type t whose yaml tag is key.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.IsExported() && strings.Split(f.Tag.Get("yaml"), ",")[0] == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
