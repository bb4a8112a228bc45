// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refSkip is the plain byte-by-byte skipper the fast SkipValue is checked
// against: it finds the end of the value at data[i] of a checked document.
func refSkip(data []byte, i int) int {
	str := func(i int) int {
		for i++; i < len(data); i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(data)
	}
	switch data[i] {
	case '"':
		return str(i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = str(i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(data)
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\n\r", rune(data[i])) {
		i++
	}
	return i
}

// TestSkipValue compares the fast skipper with the reference on values
// with escapes at every position.
func TestSkipValue(t *testing.T) {
	tests := []string{
		`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"abcdefghijklmnop\"q"`, `"abcdefghijklmnopqrstu\\"`,
		`"0123456789abcde\\"`, `"0123456789abcdef\\"`, `"\u0022"`, `{"a":"}"}`, `["]",{"b":[1,2]}]`,
		`123`, `-1.5e3`, `true`, `null`, `{"k\"ey":"v\\\\"}`,
	}
	for _, v := range tests {
		data := []byte(v + ` ,`)
		if err := Check([]byte(v), nil); err != nil {
			t.Fatalf("bad test value %s: %v", v, err)
		}
		if got, want := SkipValue(data, 0), refSkip(data, 0); got != want {
			t.Errorf("SkipValue(%s) = %d, want %d", v, got, want)
		}
		if got, want := Skip(data, 0), refSkip(data, 0); got != want {
			t.Errorf("Skip(%s) = %d, want %d", v, got, want)
		}
	}
}

func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `{"x":["\\",1]}`, `"0123456789abcdef\\\"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Check(data, nil) != nil {
			return
		}
		i := SkipSpace(data, 0)
		if got, want := SkipValue(data, i), refSkip(data, i); got != want {
			t.Fatalf("SkipValue = %d, reference = %d on %q", got, want, data)
		}
	})
}

// walkList lists every value of a checked document as "pointer=raw",
// with the offset walkers or with the reference skipper.
func walkList(data []byte, fast bool) []string {
	var out []string
	var rec func(data []byte, i int, ptr string) int
	rec = func(data []byte, i int, ptr string) int {
		var end int
		switch {
		case fast && data[i] == '{':
			end, _ = WalkObject(data, i, func(k []byte, vs int) (int, error) {
				return rec(data, vs, ptr+"/"+string(k)), nil
			})
		case fast && data[i] == '[':
			end, _ = WalkArray(data, i, func(n, vs int) (int, error) {
				return rec(data, vs, fmt.Sprintf("%s/%d", ptr, n)), nil
			})
		case !fast && data[i] == '{':
			end = refSkip(data, i)
			// The names as written, unquoted by Unquote: the walkers'
			// names must be these, whichever way they found the escapes.
			var raw [][]byte
			_, _ = WalkObjectRaw(data[i:end], 0, func(k []byte, _ int) (int, error) { raw = append(raw, k); return -1, nil })
			n := 0
			_ = Members(data[i:end], func(k, val []byte) error {
				if n < len(raw) {
					if want, err := Unquote(raw[n]); err != nil || string(k) != want {
						out = append(out, fmt.Sprintf("%s: name %q, unquoted %q (%v)", ptr, k, want, err))
					}
				}
				n++
				rec(val, 0, ptr+"/"+string(k))
				return nil
			})
		case !fast && data[i] == '[':
			end = refSkip(data, i)
			_ = Elements(data[i:end], func(n int, val []byte) error { rec(val, 0, fmt.Sprintf("%s/%d", ptr, n)); return nil })
		default:
			end = refSkip(data, i)
		}
		out = append(out, ptr+"="+string(data[i:end]))
		return end
	}
	rec(data, SkipSpace(data, 0), "")
	return out
}

// FuzzWalk checks the offset walkers against Members and Elements driven
// by the reference skipper on every document Check accepts: the same
// values, found at the same places. Escaped quotes and backslashes before
// and after the 16 bytes scanned inline are the cases that matter.
func FuzzWalk(f *testing.F) {
	f.Add([]byte(`{"a":"x\"y","b":[1,{"c":"\\"}],"d":"0123456789abcdef\"k\\\\","e":"0123456789abcdefghij\\\"z"}`))
	f.Add([]byte(` [ "", {}, [], "\u0041", true, -1.5e3, null ] `))
	f.Add([]byte(`{"\u0074ype":"function","name":"` + strings.Repeat("x", 40) + `\\"}`))
	f.Add([]byte(`{"a_long_name_\"q":1,"another_long_name\\":2,"long_plain_name_here":3,"s\u0074":4}`))
	f.Add([]byte(`{"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string","description":"The city, e.g. \"Paris\""}}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if Check(data, nil) != nil {
			return
		}
		if diff := cmp.Diff(walkList(data, false), walkList(data, true)); diff != "" {
			t.Errorf("walkers differ (-reference +fast):\n%s", diff)
		}
	})
}

// TestWordMasks checks the word-at-a-time byte tests against a byte-by-byte
// reading of every byte value at every position, beside neighbours that
// would carry or borrow into it: the lowest flagged byte must be the first
// byte looked for, and nothing may be flagged when there is none.
func TestWordMasks(t *testing.T) {
	fillers := []byte{'a', 0x00, '"', '\\', 0x1f, 0x20, 0x7f, 0x80, 0xff, 0x01}
	lowest := func(m uint64) int {
		if m == 0 {
			return -1
		}
		return bits.TrailingZeros64(m) >> 3
	}
	for _, f := range fillers {
		for _, g := range fillers {
			for p := range 8 {
				for b := range 256 {
					var word [8]byte
					for k := range word {
						word[k] = f
						if k > p {
							word[k] = g
						}
					}
					word[p] = byte(b)
					w := binary.LittleEndian.Uint64(word[:])
					zero, stop := -1, -1
					for k, c := range word {
						if c == 0 && zero < 0 {
							zero = k
						}
						if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) && stop < 0 {
							stop = k
						}
					}
					if got := lowest(zeroBytes(w)); got != zero {
						t.Fatalf("zeroBytes(%016x): lowest flag at %d, want %d", w, got, zero)
					}
					if got := lowest(stopBytes(w)); got != stop {
						t.Fatalf("stopBytes(%016x): lowest flag at %d, want %d", w, got, stop)
					}
					for k, c := range word { // stopBytes is exact in every byte
						want := c == '"' || c == '\\' || c < 0x20 || c >= 0x80
						if got := stopBytes(w)>>(8*k)&0xff == 0x80; got != want {
							t.Fatalf("stopBytes(%016x): byte %d flagged %v, want %v", w, k, got, want)
						}
					}
				}
			}
		}
	}
}
