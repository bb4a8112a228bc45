// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package anthropic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/strictjson"
)

// walk lists every value of a checked document as "pointer=raw", once
// with this package's walkers and once with strictjson's.
func walk(data []byte, fast bool) []string {
	var out []string
	var rec func(v []byte, ptr string)
	rec = func(v []byte, ptr string) {
		out = append(out, ptr+"="+string(v))
		switch strictjson.KindOf(v) {
		case strictjson.Object:
			fn := func(k, val []byte) error { rec(val, ptr+"/"+string(k)); return nil }
			if fast {
				_ = members(v, fn)
			} else {
				_ = strictjson.Members(v, fn)
			}
		case strictjson.Array:
			fn := func(i int, val []byte) error { rec(val, fmt.Sprintf("%s/%d", ptr, i)); return nil }
			if fast {
				_ = elements(v, fn)
			} else {
				_ = strictjson.Elements(v, fn)
			}
		}
	}
	start := skipWS(data, 0)
	rec(data[start:skipValue(data, start)], "")
	return out
}

// FuzzWalk checks the package's fast walkers against strictjson's on
// every document strictjson accepts: the same values, found at the same
// places. Escaped quotes and backslashes before and after the 16 bytes
// scanned inline are the cases that matter.
func FuzzWalk(f *testing.F) {
	f.Add([]byte(`{"a":"x\"y","b":[1,{"c":"\\"}],"d":"0123456789abcdef\"k\\\\","e":"0123456789abcdefghij\\\"z"}`))
	f.Add([]byte(` [ "", {}, [], "\u0041", true, -1.5e3, null ] `))
	f.Add([]byte(`{"\u0074ype":"function","name":"` + strings.Repeat("x", 40) + `\\"}`))
	seeds(f, "tools.txtar", "response.txtar")
	f.Fuzz(func(t *testing.T, data []byte) {
		if strictjson.Check(data, nil) != nil {
			return
		}
		if diff := cmp.Diff(walk(data, false), walk(data, true)); diff != "" {
			t.Errorf("walkers differ (-strictjson +fast):\n%s", diff)
		}
	})
}
