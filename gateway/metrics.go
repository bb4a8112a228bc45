// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// unknownModel is the model label of requests for a model not served, so
// that clients cannot grow the label set without bound.
const unknownModel = "_unknown"

// Metrics counts gateway requests for Prometheus: requests by model,
// provider, front door and status; latency and time to first token by
// model, provider and front door; tokens by model, provider and kind. It
// is safe for concurrent use.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	ttft     *prometheus.HistogramVec
	tokens   *prometheus.CounterVec
	attempts *prometheus.CounterVec
	passes   *prometheus.HistogramVec

	// The series each request adds to, looked up once per label set:
	// WithLabelValues checks, hashes and compares every label value on
	// every call, several times per request. The caches hold as many
	// entries as the vectors hold series (they never delete one). They
	// share one key type, so that a request runs one copy of the map's
	// hash and equality code, not one per cache.
	requestSeries series[labels, prometheus.Counter]
	latencySeries series[labels, prometheus.Observer]
	ttftSeries    series[labels, prometheus.Observer]
	tokenSeries   series[labels, prometheus.Counter]
	attemptSeries series[string, prometheus.Counter]
}

// labels are a series' label values; each cache leaves out (zero) those
// its vector does not have.
type labels struct {
	model, provider, front, kind, principal, key string
	status                                       int
}

// series maps a label set to its series.
type series[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

// get returns k's series, made by child(m, k) the first time. child is
// a function literal capturing nothing, so that calling get allocates
// nothing once the series exists.
func (c *series[K, V]) get(m *Metrics, k K, child func(*Metrics, K) V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[k]; ok {
		return v
	}
	if c.m == nil {
		c.m = make(map[K]V)
	}
	v = child(m, k)
	c.m[k] = v
	return v
}

// attempt counts one request sent to provider.
func (m *Metrics) attempt(provider string) {
	m.attemptSeries.get(m, provider, func(m *Metrics, p string) prometheus.Counter {
		return m.attempts.WithLabelValues(p)
	}).Inc()
}

// NewMetrics returns metrics registered with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	buckets := prometheus.ExponentialBuckets(0.005, 2.5, 12)
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gateway_requests_total",
			Help: "Gateway requests, by public model, provider, front door, HTTP status, principal and key (the key only with Config.MetricsKeyLabel).",
		}, []string{"model", "provider", "front", "status", "principal", "key"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_gateway_request_duration_seconds",
			Help:    "Time from receiving a request to the end of its answer.",
			Buckets: buckets,
		}, []string{"model", "provider", "front"}),
		ttft: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_gateway_time_to_first_token_seconds",
			Help:    "Time from receiving a streaming request to the first event of the model's turn sent to the client.",
			Buckets: buckets,
		}, []string{"model", "provider", "front"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gateway_tokens_total",
			Help: "Tokens the backends reported, by kind (input, output, reasoning, cache_read, cache_write), principal and key (the key only with Config.MetricsKeyLabel).",
		}, []string{"model", "provider", "kind", "principal", "key"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_gateway_backend_attempts_total",
			Help: "Requests sent to backends, retries and fallbacks included, by provider.",
		}, []string{"provider"}),
		passes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_gateway_pass_duration_seconds",
			Help:    "Duration of each backend pass of a two-pass answer (pass 1 reasons, pass 2 answers), by provider and pass.",
			Buckets: buckets,
		}, []string{"provider", "pass"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.ttft, m.tokens, m.attempts, m.passes} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Metrics) observe(s *served, d time.Duration, keyLabel bool) {
	model := s.model
	if !s.known {
		model = unknownModel
	}
	front := string(s.front)
	key := ""
	if keyLabel {
		key = s.who.KeyID
	}
	principal := s.who.Principal.ID
	m.requestSeries.get(m, labels{model: model, provider: s.provider, front: front, principal: principal, key: key, status: s.status}, func(m *Metrics, k labels) prometheus.Counter {
		return m.requests.WithLabelValues(k.model, k.provider, k.front, strconv.Itoa(k.status), k.principal, k.key)
	}).Inc()
	if s.provider == "" {
		return
	}
	route := labels{model: model, provider: s.provider, front: front}
	m.latencySeries.get(m, route, func(m *Metrics, k labels) prometheus.Observer {
		return m.latency.WithLabelValues(k.model, k.provider, k.front)
	}).Observe(d.Seconds())
	if s.ttft > 0 {
		m.ttftSeries.get(m, route, func(m *Metrics, k labels) prometheus.Observer {
			return m.ttft.WithLabelValues(k.model, k.provider, k.front)
		}).Observe(s.ttft.Seconds())
	}
	u := &s.usage
	for _, k := range [...]struct {
		kind string
		n    int64
	}{{"input", u.InputTokens}, {"output", u.OutputTokens}, {"reasoning", u.ReasoningTokens}, {"cache_read", u.CacheReadTokens}, {"cache_write", u.CacheWriteTokens}} {
		if k.n > 0 {
			m.tokenSeries.get(m, labels{model: model, provider: s.provider, kind: k.kind, principal: principal, key: key}, func(m *Metrics, k labels) prometheus.Counter {
				return m.tokens.WithLabelValues(k.model, k.provider, k.kind, k.principal, k.key)
			}).Add(float64(k.n))
		}
	}
}
