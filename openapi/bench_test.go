// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

//go:build unix

package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/codec/openai"
	"github.com/toolgate/toolgate/internal/corpustest"
	"github.com/toolgate/toolgate/schema"
)

const githubSpec = "real/github-api.github.com.2022-07-18.json"

// toOpenAI is the benchmarked conversion: a spec's bytes to the OpenAI
// Chat Completions tools array, schemas lowered for OpenAI.
func toOpenAI(data []byte) ([]byte, int, error) {
	api, err := Load(context.Background(), data, "", nil)
	if err != nil {
		return nil, 0, err
	}
	names := schema.NewNameMap(schema.OpenAI)
	tools := &codec.Tools{}
	for i := range api.Operations {
		d, _, err := schema.LowerDefinition(schema.OpenAI, &api.Operations[i].Definition, names)
		if err != nil {
			return nil, 0, err
		}
		tools.Defs = append(tools.Defs, d)
	}
	out, _, err := openai.EncodeTools(tools)
	return out, len(tools.Defs), err
}

// cpuTime returns the process's user and system CPU time: the machines
// benchmarks run on are shared, and CPU time is what the work costs
// whatever the load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGitHubToOpenAI converts the GitHub REST spec (874 operations,
// 4 MB) to OpenAI tools. It reports the CPU time per conversion and its
// ratio to the CPU time of a bare encoding/json decode of the same file
// into any, and the peak RSS of a process that converts it once.
func BenchmarkGitHubToOpenAI(b *testing.B) {
	path := filepath.Join(corpustest.Dir(b, "openapi"), githubSpec)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	decode := bareDecode(b, data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cpuTime()
	var n int
	for b.Loop() {
		if _, n, err = toOpenAI(data); err != nil {
			b.Fatal(err)
		}
	}
	cpu = cpuTime() - cpu
	cpuPerOp := cpu / time.Duration(b.N)
	b.ReportMetric(float64(n), "tools")
	b.ReportMetric(float64(cpuPerOp.Nanoseconds())/1e6, "cpu-ms/op")
	b.ReportMetric(float64(decode.Nanoseconds())/1e6, "decode-cpu-ms")
	b.ReportMetric(float64(cpuPerOp)/float64(decode), "x-decode-cpu")
	if rss, err := peakRSS(path); err == nil {
		b.ReportMetric(float64(rss)/(1<<20), "peak-MiB")
	} else {
		b.Logf("peak RSS not measured: %v", err)
	}
}

// BenchmarkGitHubDecode is the reference: encoding/json decoding the same
// file into any.
func BenchmarkGitHubDecode(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpustest.Dir(b, "openapi"), githubSpec))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// bareDecode returns the CPU time of one encoding/json decode of data
// into any, averaged over five. CPU time, unlike wall time, barely moves
// with the load of a shared machine, so the ratio is stable.
func bareDecode(b *testing.B, data []byte) time.Duration {
	start := cpuTime()
	for range 5 {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
	return (cpuTime() - start) / 5
}

const peakEnv = "TOOLGATE_OPENAPI_PEAK_SPEC"

// peakRSS runs the conversion once in a fresh process and returns its
// peak resident set size in bytes.
func peakRSS(spec string) (int64, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), peakEnv+"="+spec)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("no rusage")
	}
	return ru.Maxrss * 1024, nil // Linux reports KiB
}

// TestPeakHelper is the child process of peakRSS; it does nothing in a
// normal test run.
func TestPeakHelper(t *testing.T) {
	spec := os.Getenv(peakEnv)
	if spec == "" {
		t.Skip("runs as the child of BenchmarkGitHubToOpenAI")
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := toOpenAI(data); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkGitHubKinOpenAPI is the alternative this package does not take
// for OpenAPI 3.x: kin-openapi's typed loader on the same file, before any
// tool is built. It is why 3.x specs are read as raw JSON.
func BenchmarkGitHubKinOpenAPI(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpustest.Dir(b, "openapi"), githubSpec))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
			b.Fatal(err)
		}
	}
}
