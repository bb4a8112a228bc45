// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server"
)

func metricsServed(principal string, status int, out int64) *served {
	s := &served{front: APIChat, model: "m", known: true, provider: "p", status: status, ttft: time.Millisecond,
		who: server.Identity{Principal: kernel.Principal{ID: principal}, KeyID: "k1"}}
	s.usage = Usage{InputTokens: 10, OutputTokens: out}
	return s
}

// TestMetricsSeriesCache checks that requests of one label set add to one
// series, and that a new label set gets its own, as WithLabelValues on
// every request did.
func TestMetricsSeriesCache(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.observe(metricsServed("a", 200, 5), time.Second, true)
	m.observe(metricsServed("a", 200, 7), time.Second, true)
	m.observe(metricsServed("b", 200, 0), time.Second, false)
	m.observe(metricsServed("a", 502, 0), time.Second, true)
	m.attempt("p")
	m.attempt("p")
	got := gatheredSeries(t, reg)
	want := []string{

		`toolgate_gateway_backend_attempts_total{provider="p"} 2`,
		`toolgate_gateway_request_duration_seconds{front="openai-chat",model="m",provider="p"} 4`,
		`toolgate_gateway_requests_total{front="openai-chat",key="",model="m",principal="b",provider="p",status="200"} 1`,
		`toolgate_gateway_requests_total{front="openai-chat",key="k1",model="m",principal="a",provider="p",status="200"} 2`,
		`toolgate_gateway_requests_total{front="openai-chat",key="k1",model="m",principal="a",provider="p",status="502"} 1`,
		`toolgate_gateway_time_to_first_token_seconds{front="openai-chat",model="m",provider="p"} 4`,
		`toolgate_gateway_tokens_total{key="",kind="input",model="m",principal="b",provider="p"} 10`,
		`toolgate_gateway_tokens_total{key="k1",kind="input",model="m",principal="a",provider="p"} 30`,
		`toolgate_gateway_tokens_total{key="k1",kind="output",model="m",principal="a",provider="p"} 12`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// gatheredSeries lists reg's series, a line each: name, labels, and the
// counter's value or the histogram's count.
func gatheredSeries(t *testing.T, reg prometheus.Gatherer) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetCounter().GetValue()
			if h := m.GetHistogram(); h != nil {
				v = float64(h.GetSampleCount())
			}
			out = append(out, fmt.Sprintf("%s{%s} %g", mf.GetName(), strings.Join(ls, ","), v))
		}
	}
	sort.Strings(out)
	return out
}

// BenchmarkMetricsObserve is the metrics' cost per request: cached series
// against WithLabelValues on every request.
func BenchmarkMetricsObserve(b *testing.B) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	s := metricsServed("agent", 200, 5)
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.observe(s, time.Millisecond, true)
			m.attempt("p")
		}
	})
	b.Run("WithLabelValues", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.requests.WithLabelValues(s.model, s.provider, "openai-chat", "200", "agent", "k1").Inc()
			m.latency.WithLabelValues(s.model, s.provider, "openai-chat").Observe(0.001)
			m.ttft.WithLabelValues(s.model, s.provider, "openai-chat").Observe(0.001)
			m.tokens.WithLabelValues(s.model, s.provider, "input", "agent", "k1").Add(10)
			m.tokens.WithLabelValues(s.model, s.provider, "output", "agent", "k1").Add(5)
			m.attempts.WithLabelValues("p").Inc()
		}
	})
}
