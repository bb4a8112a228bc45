// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"bytes"
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteVersion(t *testing.T) {
	main := debug.Module{Path: "github.com/toolgate/toolgate", Version: "v0.3.0"}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{
			name: "with_vcs",
			info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: main, Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "61493c0abc"},
				{Key: "vcs.time", Value: "2026-11-23T21:00:00Z"}, {Key: "vcs.modified", Value: "true"},
			}},
			ok:   true,
			want: "toolgate v0.3.0\nmodule:   github.com/toolgate/toolgate\ngo:       go1.26.8\nrevision: 61493c0abc\ntime:     2026-11-23T21:00:00Z\nmodified: true\n",
		},
		{
			name: "buildvcs_false",
			info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: main.Path, Version: "(devel)"}},
			ok:   true,
			want: "toolgate (devel)\nmodule:   github.com/toolgate/toolgate\ngo:       go1.26.8\nrevision: unknown (built without VCS information, e.g. with -buildvcs=false)\n",
		},
		{
			name: "no_build_info",
			want: "toolgate: no build information (not built with module support)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeVersion(&b, tt.info, tt.ok)
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	out, _, err := runCLI(t, "version")
	if err != nil || !strings.HasPrefix(out, "toolgate ") || !strings.Contains(out, "revision: ") {
		t.Errorf("version: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "version", "--help"); err != nil {
		t.Errorf("version --help: %v", err)
	}
	if _, _, err := runCLI(t, "version", "extra"); !errors.Is(err, ErrUsage) {
		t.Errorf("version extra: %v, want a usage error", err)
	}
}
