// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"fmt"
	"io"
	"runtime/debug"
)

func runVersion(e *env, args []string) error {
	fs := newFlags(e, "version", "",
		"Print the module version toolgate was built from, the Go version, and the VCS\n"+
			"revision, commit time and whether the tree had local changes, as the Go\n"+
			"toolchain recorded them. A binary built with -buildvcs=false (or outside a\n"+
			"repository) has no VCS information, and says so.")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: version takes no arguments", ErrUsage)
	}
	info, ok := debug.ReadBuildInfo()
	writeVersion(e.stdout, info, ok)
	return nil
}

// writeVersion prints what info says about the build; ok false means the
// binary carries no build information at all.
func writeVersion(w io.Writer, info *debug.BuildInfo, ok bool) {
	if !ok || info == nil {
		fmt.Fprintln(w, "toolgate: no build information (not built with module support)")
		return
	}
	version := info.Main.Version
	if version == "" {
		version = "(unknown)"
	}
	fmt.Fprintf(w, "toolgate %s\n", version)
	if info.Main.Path != "" {
		fmt.Fprintf(w, "module:   %s\n", info.Main.Path)
	}
	fmt.Fprintf(w, "go:       %s\n", info.GoVersion)
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	if vcs["vcs.revision"] == "" {
		fmt.Fprintln(w, "revision: unknown (built without VCS information, e.g. with -buildvcs=false)")
		return
	}
	fmt.Fprintf(w, "revision: %s\n", vcs["vcs.revision"])
	if t := vcs["vcs.time"]; t != "" {
		fmt.Fprintf(w, "time:     %s\n", t)
	}
	if m := vcs["vcs.modified"]; m != "" {
		fmt.Fprintf(w, "modified: %s\n", m)
	}
}
