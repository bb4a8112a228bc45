// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		opts    *Options
		err     error
		pointer string
		offset  int64
	}{
		{name: "object", in: `{"a":1,"b":[true,false,null,"x",-1.5e3]}`},
		{name: "whitespace", in: " \n\t{ } \r\n"},
		{name: "scalar", in: `"hi"`},
		{name: "surrogate-pair", in: `"\ud83d\ude00"`},
		{name: "emoji", in: `"😀"`},
		{name: "empty", in: ``, err: ErrSyntax},
		{name: "only-space", in: `   `, err: ErrSyntax},
		{name: "duplicate", in: `{"a":1,"a":2}`, err: ErrDuplicateName, pointer: "/a", offset: 7},
		{name: "duplicate-escaped", in: `{"a":1,"\u0061":2}`, err: ErrDuplicateName, pointer: "/a", offset: 7},
		{name: "duplicate-nested", in: `{"x":[{"k":1},{"k":1,"k":2}]}`, err: ErrDuplicateName, pointer: "/x/1/k", offset: 21},
		{name: "duplicate-allowed", in: `{"a":1,"a":2}`, opts: &Options{AllowDuplicateNames: true}},
		{name: "case-differs", in: `{"a":1,"A":2}`},
		{name: "invalid-utf8", in: "{\"a\":\"\xff\"}", err: ErrInvalidUTF8, pointer: "/a", offset: 6},
		{name: "invalid-utf8-key", in: "{\"\xc3\":1}", err: ErrInvalidUTF8, offset: 2},
		{name: "lone-surrogate", in: `"\ud800"`, err: ErrInvalidUTF8},
		{name: "low-surrogate-first", in: `"\udc00\ud800"`, err: ErrInvalidUTF8},
		{name: "too-deep", in: strings.Repeat("[", 300) + strings.Repeat("]", 300), err: ErrTooDeep, offset: 256, pointer: strings.Repeat("/0", 256)},
		{name: "depth-limit-off", in: strings.Repeat("[", 300) + strings.Repeat("]", 300), opts: &Options{MaxDepth: -1}},
		{name: "too-large", in: `[1,2,3]`, opts: &Options{MaxBytes: 4}, err: ErrTooLarge, offset: 4},
		{name: "trailing-comma", in: `[1,]`, err: ErrSyntax, pointer: "/1", offset: 3},
		{name: "trailing-data", in: `{} {}`, err: ErrSyntax, offset: 3},
		{name: "leading-zero", in: `01`, err: ErrSyntax, offset: 1},
		{name: "bad-fraction", in: `1.`, err: ErrSyntax},
		{name: "bad-exponent", in: `1e+`, err: ErrSyntax},
		{name: "single-quote", in: `{'a':1}`, err: ErrSyntax, offset: 1},
		{name: "control-char", in: "\"a\x01\"", err: ErrSyntax},
		{name: "bad-escape", in: `"\x"`, err: ErrSyntax},
		{name: "unterminated", in: `{"a":"b`, err: ErrSyntax, pointer: "/a"},
		{name: "missing-colon", in: `{"a" 1}`, err: ErrSyntax, pointer: "/a"},
		{name: "nan", in: `NaN`, err: ErrSyntax},
		{name: "pointer-escaping", in: `{"a/b":{"c~d":[0,{"e":1,"e":1}]}}`, err: ErrDuplicateName, pointer: "/a~1b/c~0d/1/e", offset: 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.in), tt.opts)
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("Check(%q) = %v, want %v", tt.in, err, tt.err)
			}
			if err == nil {
				return
			}
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("error %T is not *Error", err)
			}
			if e.Pointer != tt.pointer {
				t.Errorf("pointer = %q, want %q", e.Pointer, tt.pointer)
			}
			if tt.offset != 0 && e.Offset != tt.offset {
				t.Errorf("offset = %d, want %d", e.Offset, tt.offset)
			}
		})
	}
}

func TestCheckManyNames(t *testing.T) {
	// A large object switches to a map; duplicates must still be found,
	// including one against a name seen before the switch.
	var b strings.Builder
	b.WriteString("{")
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(`_`)
		b.WriteString(strings.Repeat("y", i/26))
		b.WriteString(`":0`)
	}
	ok := b.String() + "}"
	if err := Check([]byte(ok), nil); err != nil {
		t.Fatalf("unique names: %v", err)
	}
	dup := b.String() + `,"ka_":1}`
	if err := Check([]byte(dup), nil); !errors.Is(err, ErrDuplicateName) {
		t.Fatalf("duplicate after switch: %v", err)
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"a\": 2\n}")
	err := Check(data, nil)
	e, ok := errors.AsType[*Error](err)
	if !ok {
		t.Fatalf("Check = %v", err)
	}
	line, col := LineCol(data, e.Offset)
	if line != 3 || col != 3 {
		t.Errorf("LineCol = %d:%d, want 3:3", line, col)
	}
}

func TestMembersElements(t *testing.T) {
	doc := []byte(` { "a" : [1, {"b":2} ,"x"], "c\"d":null, "e": {} } `)
	if err := Check(doc, nil); err != nil {
		t.Fatal(err)
	}
	var keys, vals []string
	err := Members(doc, func(k, v []byte) error {
		keys = append(keys, string(k))
		vals = append(vals, string(v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(keys, "|"), `a|c"d|e`; got != want {
		t.Errorf("keys = %q, want %q", got, want)
	}
	if got, want := strings.Join(vals, "|"), `[1, {"b":2} ,"x"]|null|{}`; got != want {
		t.Errorf("values = %q, want %q", got, want)
	}
	var elems []string
	if err := Elements([]byte(vals[0]), func(i int, v []byte) error {
		elems = append(elems, string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(elems, "|"), `1|{"b":2}|"x"`; got != want {
		t.Errorf("elements = %q, want %q", got, want)
	}
	if got := string(Get(doc, "e")); got != "{}" {
		t.Errorf(`Get("e") = %q`, got)
	}
}

func TestAppendQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t", "<html>&", "emoji 😀", "\x00\x1f", "bad \xff utf8", "sep\u2028"} {
		q := AppendQuote(nil, s)
		if err := Check(q, nil); err != nil {
			t.Errorf("AppendQuote(%q) = %s: %v", s, q, err)
			continue
		}
		got, err := Unquote(q)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if got != want {
			t.Errorf("round trip of %q = %q", s, got)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `{"a":1,"a":2}`, "\"\xff\"", `[1e5,-0.5,true]`, `{"\u0061":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data, nil)
		if err == nil {
			if !json.Valid(data) {
				t.Fatalf("Check accepted what encoding/json rejects: %q", data)
			}
			if !utf8.Valid(data) {
				t.Fatalf("Check accepted invalid UTF-8: %q", data)
			}
			// A checked document must walk cleanly.
			walk(t, data)
			return
		}
		if json.Valid(data) && utf8.Valid(data) {
			// Only strictness may reject what encoding/json accepts.
			if !errors.Is(err, ErrDuplicateName) && !errors.Is(err, ErrTooDeep) && !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("Check(%q) = %v, but encoding/json accepts it", data, err)
			}
		}
		// The readers must not panic on unchecked input either.
		_ = Members(data, func(k, v []byte) error { return nil })
		_ = Elements(data, func(i int, v []byte) error { return nil })
		_, _ = Unquote(data)
		_ = Skip(data, 0)
	})
}

func walk(t *testing.T, v []byte) {
	switch KindOf(v) {
	case Object:
		if err := Members(v, func(k, val []byte) error { walk(t, val); return nil }); err != nil {
			t.Fatalf("Members(%q): %v", v, err)
		}
	case Array:
		if err := Elements(v, func(i int, val []byte) error { walk(t, val); return nil }); err != nil {
			t.Fatalf("Elements(%q): %v", v, err)
		}
	case String:
		if _, err := Unquote(v); err != nil {
			t.Fatalf("Unquote(%q): %v", v, err)
		}
	case Invalid:
		t.Fatalf("KindOf(%q) = invalid", v)
	}
}

func TestEscapePointer(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a/b", "a~1b"},
		{"m~n", "m~0n"},
		{"~/~/", "~0~1~0~1"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := EscapePointer(tt.in); got != tt.want {
			t.Errorf("EscapePointer(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// refQuote is AppendQuote rune by rune, the reference of FuzzAppendQuote.
func refQuote(s string) []byte {
	b := []byte{'"'}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// FuzzAppendQuote checks AppendQuote, which skips plain ASCII eight bytes
// a step, against the rune-by-rune reference, and that its output reads
// back as the input with each invalid byte replaced by U+FFFD.
func FuzzAppendQuote(f *testing.F) {
	for _, s := range []string{"", "plain ASCII text of some length", "12345678\"", "1234567\n89", "é12345678\xff", "\u2028abcdefgh\u2029", "abcdefg\x7f\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendQuote([]byte("x"), s)
		if want := append([]byte("x"), refQuote(s)...); string(got) != string(want) {
			t.Fatalf("AppendQuote(%q) = %s, want %s", s, got, want)
		}
		if u, err := Unquote(got[1:]); err != nil || u != string([]rune(s)) {
			t.Fatalf("Unquote(AppendQuote(%q)) = %q, %v", s, u, err)
		}
	})
}
