// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package strictjson

import "testing"

func TestWithMember(t *testing.T) {
	tests := []struct{ name, obj, want string }{
		{name: "empty", obj: `{}`, want: `{"k":true}`},
		{name: "members-kept-in-order", obj: `{"b":1, "a" : [2,3]}`, want: `{"b":1,"a":[2,3],"k":true}`},
		{name: "escaped-name", obj: `{"a\u0022b":null}`, want: `{"a\"b":null,"k":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(WithMember([]byte(tt.obj), "k", []byte("true"))); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
