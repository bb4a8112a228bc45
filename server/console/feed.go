// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console

import (
	"encoding/json"
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

// providerStats summarises the gateway requests kept, per provider.
type providerStats struct {
	Provider  string    `json:"provider"`
	Requests  int       `json:"requests"`
	Errors    int       `json:"errors"`
	P50MS     float64   `json:"p50_ms"`
	P95MS     float64   `json:"p95_ms"`
	LatencyMS []float64 `json:"latency_ms"` // the last ones, oldest first, for the chart
}

func (f *Feed) providers() []providerStats {
	by := map[string]*providerStats{}
	var order []string
	for _, e := range f.Events() {
		r := e.Request
		if r == nil || r.Provider == "" {
			continue
		}
		ps := by[r.Provider]
		if ps == nil {
			ps = &providerStats{Provider: r.Provider}
			by[r.Provider] = ps
			order = append(order, r.Provider)
		}
		ps.Requests++
		if r.Status >= 400 || r.Error != "" {
			ps.Errors++
		}
		ps.LatencyMS = append(ps.LatencyMS, float64(r.Duration)/float64(time.Millisecond))
	}
	out := make([]providerStats, 0, len(order))
	for _, name := range order {
		ps := by[name]
		sorted := append([]float64(nil), ps.LatencyMS...)
		sortFloats(sorted)
		ps.P50MS, ps.P95MS = quantile(sorted, 0.5), quantile(sorted, 0.95)
		if len(ps.LatencyMS) > 100 {
			ps.LatencyMS = ps.LatencyMS[len(ps.LatencyMS)-100:]
		}
		out = append(out, *ps)
	}
	return out
}
