// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/server"
)

// Defaults for [Feed] and [Config] fields left zero.
const (
	DefaultFeedSize       = 500
	DefaultMaxSubscribers = 16
	// subscriberBuffer is how many events a live-feed client may lag
	// behind before it is dropped (its browser reconnects and replays
	// the ring): a client that never reads cannot grow memory.
	subscriberBuffer = 64
)

// Event is one entry of the live feed: a tool call or a gateway request,
// with its caller.
type Event struct {
	Seq  uint64 `json:"seq"`
	Kind string `json:"kind"` // call | request
	server.Observation
}

// Feed keeps the last calls and gateway requests in a ring and hands new
// ones to the console's live subscribers. It is a [server.Observer]: put
// it in the server's fan-out. It is safe for concurrent use.
type Feed struct {
	mu      sync.Mutex
	ring    []Event
	next    int
	full    bool
	seq     uint64
	subs    map[chan []byte]struct{}
	maxSubs int
}

// NewFeed returns a feed keeping size events (DefaultFeedSize if zero)
// and at most maxSubs live subscribers (DefaultMaxSubscribers if zero).
func NewFeed(size, maxSubs int) *Feed {
	if size <= 0 {
		size = DefaultFeedSize
	}
	if maxSubs <= 0 {
		maxSubs = DefaultMaxSubscribers
	}
	return &Feed{ring: make([]Event, size), subs: map[chan []byte]struct{}{}, maxSubs: maxSubs}
}

// Observe adds a call or a model request.
func (f *Feed) Observe(o server.Observation) {
	kind := "call"
	if o.Request != nil {
		kind = "request"
	}
	f.add(Event{Kind: kind, Observation: o})
}

func (f *Feed) add(e Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	e.Seq = f.seq
	f.ring[f.next] = e
	f.next = (f.next + 1) % len(f.ring)
	if f.next == 0 {
		f.full = true
	}
	if len(f.subs) == 0 {
		return
	}
	b, _ := json.Marshal(e)
	for ch := range f.subs {
		select {
		case ch <- b:
		default:
			// Too far behind: dropped, it reconnects and replays.
			delete(f.subs, ch)
			close(ch)
		}
	}
}

// Events returns the events kept, oldest first.
func (f *Feed) Events() []Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Event
	if f.full {
		out = append(out, f.ring[f.next:]...)
	}
	return append(out, f.ring[:f.next]...)
}

// subscribe returns the events kept and a channel of the next ones, or
// false when there are already maxSubs subscribers.
func (f *Feed) subscribe() ([]Event, chan []byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subs) >= f.maxSubs {
		return nil, nil, false
	}
	ch := make(chan []byte, subscriberBuffer)
	f.subs[ch] = struct{}{}
	var past []Event
	if f.full {
		past = append(past, f.ring[f.next:]...)
	}
	return append(past, f.ring[:f.next]...), ch, true
}

func (f *Feed) unsubscribe(ch chan []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[ch]; ok {
		delete(f.subs, ch)
		close(ch)
	}
}

// maxProviderPoints bounds the points a provider's chart gets.
const maxProviderPoints = 100

// providerStats summarises the gateway requests kept, per provider.
type providerStats struct {
	Provider string `json:"provider"`
	Requests int    `json:"requests"`
	Errors   int    `json:"errors"`
	// P50MS and P95MS are of the successful requests: a backend that
	// refuses at once would otherwise look fast. Zero without any.
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
	// Points are the last maxProviderPoints requests, oldest first, for
	// the chart.
	Points []latencyPoint `json:"points"`
	// LastFailure is the latest failed request; nil without one.
	LastFailure *providerFailure `json:"last_failure,omitempty"`
}

// providerFailure is a failed request: when, the status the gateway
// answered, and what failed in the gateway's words (which hold nothing
// of the stream).
type providerFailure struct {
	T      int64  `json:"t"` // Unix milliseconds
	Status int    `json:"status"`
	Error  string `json:"error,omitempty"`
}

// latencyPoint is one request on a provider's chart.
type latencyPoint struct {
	T      int64   `json:"t"` // when it started, Unix milliseconds
	MS     float64 `json:"ms"`
	OK     bool    `json:"ok"`
	Status int     `json:"status"`
}

// providers summarises the gateway requests kept, by provider name.
func (f *Feed) providers() []providerStats {
	by := map[string]*providerStats{}
	ok := map[string][]float64{}
	for _, e := range f.Events() {
		r := e.Request
		if r == nil || r.Provider == "" {
			continue
		}
		ps := by[r.Provider]
		if ps == nil {
			ps = &providerStats{Provider: r.Provider}
			by[r.Provider] = ps
		}
		pt := latencyPoint{T: r.Time.UnixMilli(), MS: float64(r.Duration) / float64(time.Millisecond), OK: r.Status < 400 && r.Error == "", Status: r.Status}
		ps.Requests++
		if pt.OK {
			ok[r.Provider] = append(ok[r.Provider], pt.MS)
		} else {
			ps.Errors++
			ps.LastFailure = &providerFailure{T: pt.T, Status: r.Status, Error: r.Error}
		}
		ps.Points = append(ps.Points, pt)
	}
	out := make([]providerStats, 0, len(by))
	for name, ps := range by {
		sorted := ok[name]
		slices.Sort(sorted)
		ps.P50MS, ps.P95MS = quantile(sorted, 0.5), quantile(sorted, 0.95)
		if n := len(ps.Points); n > maxProviderPoints {
			ps.Points = slices.Clip(ps.Points[n-maxProviderPoints:])
		}
		out = append(out, *ps)
	}
	slices.SortFunc(out, func(a, b providerStats) int { return strings.Compare(a.Provider, b.Provider) })
	return out
}
