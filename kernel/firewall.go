// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/redact"
	"github.com/toolgate/toolgate/tool"
)

// maxToolDepth is the deepest JSON the firewall reads from a tool; deeper
// documents are withheld whole.
const maxToolDepth = 512

// Mode is how a result is shaped for the model.
type Mode string

// Response modes.
const (
	// ModeDefault returns content as the tool produced it, within budgets.
	ModeDefault Mode = ""
	// ModeSummary replaces JSON with a short description of its shape and
	// first items: for a model that only needs to know what came back.
	ModeSummary Mode = "summary"
	// ModeTable renders a JSON array of objects as a Markdown table.
	ModeTable Mode = "table"
	// ModeRaw skips the byte and row budgets and shaping (the depth limit
	// stays). Only principals with the "admin" role get it; others get
	// ModeDefault and a note.
	ModeRaw Mode = "raw"
)

// FirewallConfig limits what a result may carry back. Redaction is always
// on.
type FirewallConfig struct {
	// MaxBytes bounds the bytes of text and JSON in one result. If zero,
	// [DefaultMaxResultBytes]; negative means no limit.
	MaxBytes int
	// MaxRows bounds the elements of each JSON array. If zero,
	// [DefaultMaxResultRows]; negative means no limit.
	MaxRows int
	// MaxDepth bounds JSON nesting; deeper values are replaced by a note.
	// If zero, [DefaultMaxResultDepth]; negative means no limit (the
	// firewall still withholds documents nested deeper than 512 levels).
	MaxDepth int
	// Redactor masks secrets. If nil, [redact.Default].
	Redactor *redact.Redactor
}

// The defaults of [FirewallConfig]'s limits, used when a field is zero.
const (
	DefaultMaxResultBytes = 64 << 10
	DefaultMaxResultRows  = 200
	DefaultMaxResultDepth = 32
)

// Firewall shapes and redacts tool results: projection to allowed
// fields, secret redaction at every depth, size budgets with notes saying
// what was cut, and response modes. It is immutable and safe for
// concurrent use.
type Firewall struct {
	maxBytes, maxRows, maxDepth int
	red                         *redact.Redactor
}

// NewFirewall returns a firewall for cfg; nil means the defaults.
func NewFirewall(cfg *FirewallConfig) *Firewall {
	var c FirewallConfig
	if cfg != nil {
		c = *cfg
	}
	f := &Firewall{
		maxBytes: orDefault(c.MaxBytes, DefaultMaxResultBytes),
		maxRows:  orDefault(c.MaxRows, DefaultMaxResultRows),
		maxDepth: orDefault(c.MaxDepth, DefaultMaxResultDepth),
		red:      c.Redactor,
	}
	if f.red == nil {
		f.red = redact.Default()
	}
	return f
}

// orDefault applies the limit convention of every config in this
// package: zero means the default, negative means no limit (-1).
func orDefault[T int | int64 | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// Redactor returns the redactor the firewall masks secrets with.
func (f *Firewall) Redactor() *redact.Redactor { return f.red }

// Apply returns res shaped for the model. fields, when non-nil, restricts
// JSON output to the given allow-list (text that is not JSON is withheld);
// mode picks the response mode. Apply never fails: whatever cannot be
// shown safely is replaced by a note.
func (f *Firewall) Apply(res tool.Result, fields *FieldSet, mode Mode) tool.Result {
	var ft *fieldTree
	if fields != nil {
		ft = fields.tree
	}
	return f.apply(res, ft, mode, f.red)
}

// apply is Apply with red masking secrets: the firewall's redactor, or one
// that also masks a kernel's registered credentials.
func (f *Firewall) apply(res tool.Result, fields *fieldTree, mode Mode, red *redact.Redactor) tool.Result {
	st := fwState{f: f, red: red, fields: fields, mode: mode, budget: f.maxBytes}
	if mode == ModeRaw {
		st.budget = -1
	}
	if fields == nil {
		st.joinTexts(res.Content)
	}
	changed := false
	content := res.Content
	for i, c := range res.Content {
		nc := st.content(i, c)
		if nc != c {
			if !changed {
				content = slices.Clone(res.Content)
				changed = true
			}
			content[i] = nc
		}
	}
	res.Content = content
	if len(res.StructuredContent) > 0 {
		v, ok := st.json(res.StructuredContent, "/structured_content")
		if !ok {
			v = strictjson.AppendQuote(nil, string(v)) // structured content must stay JSON
		}
		res.StructuredContent = v
	}
	res.Extensions = nil // extensions are provider metadata; never echo them unfiltered
	if len(st.notes) > 0 {
		// Notes quote pointers into the document; they are built from
		// masked names, and masked again whole in case a secret spans
		// names.
		note := red.String("[toolgate: " + strings.Join(st.notes, "; ") + "]")
		res.Content = append(slices.Clip(res.Content), &tool.Text{Text: note})
	}
	return res
}

type fwState struct {
	f      *Firewall
	red    *redact.Redactor
	fields *fieldTree
	mode   Mode
	budget int // bytes left; -1 unlimited
	notes  []string
	// texts holds the text parts masked together, by content index, when
	// a result has more than one: a secret may start in one part and end
	// in the next. Nil otherwise.
	texts []string
}

// joinTexts masks the text parts of content as one text (see
// [redact.Redactor.Strings]) when there are several, into st.texts.
func (st *fwState) joinTexts(content []tool.Content) {
	n := 0
	for _, c := range content {
		if _, ok := c.(*tool.Text); ok {
			n++
		}
	}
	if n < 2 {
		return
	}
	parts := make([]string, 0, n)
	for _, c := range content {
		if t, ok := c.(*tool.Text); ok {
			parts = append(parts, t.Text)
		}
	}
	parts = st.red.Strings(parts)
	st.texts = make([]string, len(content))
	j := 0
	for i, c := range content {
		if _, ok := c.(*tool.Text); ok {
			st.texts[i] = parts[j]
			j++
		}
	}
}

func (st *fwState) note(format string, args ...any) {
	if len(st.notes) < 8 {
		st.notes = append(st.notes, fmt.Sprintf(format, args...))
	}
}

func (st *fwState) content(i int, c tool.Content) tool.Content {
	switch c := c.(type) {
	case *tool.Text:
		if st.texts != nil {
			t := st.cut(st.texts[i])
			if t == c.Text {
				return c
			}
			return &tool.Text{Text: t}
		}
		if st.fields != nil {
			if k := strictjson.KindOf([]byte(c.Text)); (k == strictjson.Object || k == strictjson.Array) && strictjson.Check([]byte(c.Text), nil) == nil {
				v, ok := st.json(json.RawMessage(c.Text), "")
				if ok {
					return &tool.JSON{Value: v}
				}
			}
			st.note("text output withheld: this tool's output is restricted to its allowed fields")
			return &tool.Text{Text: ""}
		}
		t := st.text(c.Text)
		if t == c.Text {
			return c
		}
		return &tool.Text{Text: t}
	case *tool.JSON:
		v, ok := st.json(c.Value, "")
		if !ok {
			return &tool.Text{Text: string(v)}
		}
		if len(v) == len(c.Value) && (len(v) == 0 || &v[0] == &c.Value[0]) {
			return c
		}
		return &tool.JSON{Value: v}
	case *tool.Image:
		if m := st.red.String(c.MIMEType); m != c.MIMEType {
			img := *c
			img.MIMEType = m
			return &img
		}
	case *tool.Audio:
		if m := st.red.String(c.MIMEType); m != c.MIMEType {
			a := *c
			a.MIMEType = m
			return &a
		}
	case *tool.Resource:
		uri, mime := st.red.String(c.URI), st.red.String(c.MIMEType)
		txt := c.Text
		if txt != "" {
			if st.fields != nil {
				st.note("resource text withheld: this tool's output is restricted to its allowed fields")
				txt = ""
			} else {
				txt = st.text(txt)
			}
		}
		if uri == c.URI && txt == c.Text && mime == c.MIMEType {
			return c
		}
		r := *c
		r.URI, r.Text, r.MIMEType = uri, txt, mime
		return &r
	}
	return c
}

// text redacts s and cuts it to the byte budget.
func (st *fwState) text(s string) string {
	return st.cut(st.red.String(s))
}

// cut cuts s, already redacted, to the byte budget.
func (st *fwState) cut(s string) string {
	if st.budget < 0 {
		return s
	}
	if len(s) > st.budget {
		cut := st.budget
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		st.note("text truncated: %d of %d bytes cut", len(s)-cut, len(s))
		s = s[:cut]
	}
	st.budget -= len(s)
	return s
}

// json projects, limits, redacts and shapes v. ok is false when the
// result is text (a summary, a table, an oversized document or invalid
// JSON) rather than JSON.
func (st *fwState) json(v json.RawMessage, at string) (out json.RawMessage, ok bool) {
	if err := strictjson.Check(v, &strictjson.Options{MaxBytes: -1, MaxDepth: maxToolDepth}); err != nil {
		if errors.Is(err, strictjson.ErrTooDeep) {
			st.note("JSON at %s nested deeper than %d levels withheld", orRoot(at), maxToolDepth)
			return nil, false
		}
		st.note("invalid JSON from the tool at %s shown as text", orRoot(at))
		return json.RawMessage(st.text(string(v))), false
	}
	// Depth is cut first, so that projection and redaction walk a
	// bounded tree; raw mode keeps every row and byte but not every level.
	v = st.limit(v, at, st.mode == ModeRaw)
	if st.fields != nil {
		v = project(v, st.fields)
	}
	v = st.red.CheckedJSON(v) // checked above; projection and limits keep it valid
	switch st.mode {
	case ModeSummary:
		return json.RawMessage(st.text(summarize(v))), false
	case ModeTable:
		if t, ok := table(v); ok {
			return json.RawMessage(st.text(t)), false
		}
	}
	if st.budget >= 0 {
		if len(v) > st.budget {
			st.note("JSON at %s was %d bytes, over the %d-byte budget; shown cut as text", orRoot(at), len(v), st.f.maxBytes)
			return json.RawMessage(st.text(string(v))), false
		}
		st.budget -= len(v)
	}
	return v, true
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// limit cuts arrays to maxRows and nesting to maxDepth. It returns v
// itself when nothing is over.
func (st *fwState) limit(v json.RawMessage, at string, raw bool) json.RawMessage {
	rows, depth := st.f.maxRows, st.f.maxDepth
	if raw {
		rows = -1
	}
	if rows < 0 && depth < 0 {
		return v
	}
	if !overLimit(v, rows, depth, 1) {
		return v
	}
	lim := limiter{rows: rows, depth: depth, red: st.red}
	out := lim.walk(make([]byte, 0, len(v)), v, 1, at)
	if lim.cutRows > 0 {
		st.note("%d array items cut beyond %d per array (first at %s)", lim.cutRows, rows, orRoot(lim.firstRows))
	}
	if lim.cutDepth > 0 {
		st.note("%d values cut beyond depth %d (first at %s)", lim.cutDepth, depth, orRoot(lim.firstDepth))
	}
	return out
}

func overLimit(v []byte, rows, depth, d int) bool {
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		if depth >= 0 && d > depth {
			return true
		}
		over := false
		_ = strictjson.Members(v, func(_, val []byte) error {
			if overLimit(val, rows, depth, d+1) {
				over = true
				return errStop
			}
			return nil
		})
		return over
	case strictjson.Array:
		if depth >= 0 && d > depth {
			return true
		}
		over := false
		_ = strictjson.Elements(v, func(i int, val []byte) error {
			if rows >= 0 && i >= rows || overLimit(val, rows, depth, d+1) {
				over = true
				return errStop
			}
			return nil
		})
		return over
	}
	return false
}

type limiter struct {
	red                   *redact.Redactor // masks the names pointers are built from
	rows, depth           int
	cutRows, cutDepth     int
	firstRows, firstDepth string
}

func (l *limiter) walk(out, v []byte, d int, at string) []byte {
	k := strictjson.KindOf(v)
	if (k == strictjson.Object || k == strictjson.Array) && l.depth >= 0 && d > l.depth {
		if l.cutDepth == 0 {
			l.firstDepth = at
		}
		l.cutDepth++
		return append(out, `"[toolgate: cut, too deep]"`...)
	}
	switch k {
	case strictjson.Object:
		out = append(out, '{')
		n := 0
		_ = strictjson.Members(v, func(key, val []byte) error {
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = strictjson.AppendQuote(out, string(key))
			out = append(out, ':')
			out = l.walk(out, val, d+1, at+"/"+strictjson.EscapePointer(l.red.String(string(key))))
			return nil
		})
		return append(out, '}')
	case strictjson.Array:
		out = append(out, '[')
		_ = strictjson.Elements(v, func(i int, val []byte) error {
			if l.rows >= 0 && i >= l.rows {
				if l.cutRows == 0 {
					l.firstRows = at
				}
				l.cutRows++
				return nil
			}
			if i > 0 {
				out = append(out, ',')
			}
			out = l.walk(out, val, d+1, at+"/"+strconv.Itoa(i))
			return nil
		})
		return append(out, ']')
	}
	return append(out, v...)
}

var errStop = errors.New("stop")

// summarize describes a JSON value in one or two lines.
func summarize(v []byte) string {
	var b strings.Builder
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		var names []string
		_ = strictjson.Members(v, func(key, val []byte) error {
			names = append(names, string(key)+" ("+kindName(val)+")")
			return nil
		})
		fmt.Fprintf(&b, "object with %d fields", len(names))
		if len(names) > 0 {
			if len(names) > 20 {
				names = append(names[:20], "…")
			}
			b.WriteString(": " + strings.Join(names, ", "))
		}
	case strictjson.Array:
		n := 0
		var first []byte
		_ = strictjson.Elements(v, func(i int, val []byte) error {
			if i == 0 {
				first = val
			}
			n++
			return nil
		})
		fmt.Fprintf(&b, "array of %d items", n)
		if n > 0 {
			f := string(first)
			if len(f) > 200 {
				f = truncateUTF8(f, 200) + "…"
			}
			b.WriteString("; first: " + f)
		}
	default:
		s := string(v)
		if len(s) > 200 {
			s = truncateUTF8(s, 200) + "…"
		}
		b.WriteString(kindName(v) + ": " + s)
	}
	return b.String()
}

func kindName(v []byte) string {
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		return "object"
	case strictjson.Array:
		return "array"
	case strictjson.String:
		return "string"
	case strictjson.Number:
		return "number"
	case strictjson.Bool:
		return "boolean"
	case strictjson.Null:
		return "null"
	}
	return "invalid"
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// table renders an array of objects as a Markdown table, with the union
// of member names as columns in first-seen order (at most 20).
func table(v []byte) (string, bool) {
	if strictjson.KindOf(v) != strictjson.Array {
		return "", false
	}
	var cols []string
	var rows [][]byte
	ok := true
	_ = strictjson.Elements(v, func(_ int, val []byte) error {
		if strictjson.KindOf(val) != strictjson.Object {
			ok = false
			return errStop
		}
		rows = append(rows, val)
		return strictjson.Members(val, func(key, _ []byte) error {
			if len(cols) < 20 && !slices.Contains(cols, string(key)) {
				cols = append(cols, string(key))
			}
			return nil
		})
	})
	if !ok || len(rows) == 0 || len(cols) == 0 {
		return "", false
	}
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cols {
		b.WriteString(" " + cell([]byte(strconv.Quote(c))) + " |")
	}
	b.WriteString("\n|")
	for range cols {
		b.WriteString(" --- |")
	}
	for _, r := range rows {
		b.WriteString("\n|")
		for _, c := range cols {
			b.WriteString(" " + cell(strictjson.Get(r, c)) + " |")
		}
	}
	return b.String(), true
}

func cell(v []byte) string {
	var s string
	switch strictjson.KindOf(v) {
	case strictjson.Invalid:
		return ""
	case strictjson.String:
		s, _ = strictjson.Unquote(v)
	default:
		s = string(v)
	}
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
	if len(s) > 60 {
		s = truncateUTF8(s, 60) + "…"
	}
	return s
}

// FieldSet is a compiled allow-list of output fields; see
// [Capability.AllowedFields].
type FieldSet struct{ tree *fieldTree }

// NewFieldSet compiles paths into a [FieldSet].
func NewFieldSet(paths []string) (*FieldSet, error) {
	t, err := compileFields(paths)
	if err != nil {
		return nil, err
	}
	return &FieldSet{tree: t}, nil
}

// fieldTree is a compiled allow-list: keep marks a path whose whole value
// is allowed.
type fieldTree struct {
	keep     bool
	children map[string]*fieldTree
	star     *fieldTree
}

func compileFields(paths []string) (*fieldTree, error) {
	root := &fieldTree{}
	for _, p := range paths {
		if p == "" {
			return nil, fmt.Errorf("empty allowed field")
		}
		n := root
		for _, seg := range strings.Split(p, ".") {
			if seg == "" {
				return nil, fmt.Errorf("allowed field %q has an empty segment", p)
			}
			if seg == "*" {
				if n.star == nil {
					n.star = &fieldTree{}
				}
				n = n.star
				continue
			}
			if n.children == nil {
				n.children = make(map[string]*fieldTree)
			}
			c := n.children[seg]
			if c == nil {
				c = &fieldTree{}
				n.children[seg] = c
			}
			n = c
		}
		n.keep = true
	}
	return root, nil
}

// project keeps only the allowed fields of v at every depth. Arrays are
// transparent; a scalar where the allow-list expects an object is dropped
// (null at the root).
func project(v []byte, t *fieldTree) []byte {
	out, ok := projectInto(nil, v, t)
	if !ok {
		return []byte("null")
	}
	return out
}

func projectInto(out, v []byte, t *fieldTree) ([]byte, bool) {
	if t.keep {
		return append(out, v...), true
	}
	switch strictjson.KindOf(v) {
	case strictjson.Object:
		out = append(out, '{')
		n := 0
		_ = strictjson.Members(v, func(key, val []byte) error {
			c := t.children[string(key)]
			if c == nil {
				c = t.star
			}
			if c == nil {
				return nil
			}
			mark := len(out)
			if n > 0 {
				out = append(out, ',')
			}
			out = strictjson.AppendQuote(out, string(key))
			out = append(out, ':')
			var ok bool
			if out, ok = projectInto(out, val, c); !ok {
				out = out[:mark]
				return nil
			}
			n++
			return nil
		})
		return append(out, '}'), true
	case strictjson.Array:
		out = append(out, '[')
		n := 0
		_ = strictjson.Elements(v, func(_ int, val []byte) error {
			mark := len(out)
			if n > 0 {
				out = append(out, ',')
			}
			var ok bool
			if out, ok = projectInto(out, val, t); !ok {
				out = out[:mark]
				return nil
			}
			n++
			return nil
		})
		return append(out, ']'), true
	}
	return out, false
}
