// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/toolgate/toolgate/kernel"
)

// Client is a connection pool to one Redis server, with the limiter and
// the revocation store on it. It is safe for concurrent use.
type Client struct {
	rdb    *goredis.Client
	prefix string
}

// DefaultPrefix starts every key toolgate writes.
const DefaultPrefix = "toolgate:"

// Open connects to the server at url (redis://[user:password@]host:port/db,
// or rediss:// for TLS) and checks that it answers.
func Open(ctx context.Context, url string) (*Client, error) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		// The URL may hold a password: the parse error is not echoed.
		return nil, errors.New("redis: the URL does not parse as redis://[user:password@]host:port/db")
	}
	rdb := goredis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("redis: %s: %w", opt.Addr, err)
	}
	return &Client{rdb: rdb, prefix: DefaultPrefix}, nil
}

// Close closes the connections.
func (c *Client) Close() error { return c.rdb.Close() }

// Limiter returns the [kernel.Limiter] on c.
func (c *Client) Limiter() *Limiter { return &Limiter{c: c} }

// Revocations returns the [kernel.Revocations] on c.
func (c *Client) Revocations() *Revocations { return &Revocations{c: c} }

// Limiter is a [kernel.Limiter] in Redis: an exact sliding log per
// principal and capability, decided by one script on the server.
type Limiter struct{ c *Client }

var _ kernel.Limiter = (*Limiter)(nil)

// allowScript: KEYS[1] the key's sorted set; ARGV window (µs), limit, a
// unique member suffix. Returns {1, 0} when the call is allowed and
// recorded, {0, retry µs} when it is not.
var allowScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
	local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
	local retry = window
	if oldest[2] then retry = tonumber(oldest[2]) + window - now end
	return {0, retry}
end
redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1)
return {1, 0}
`)

// Allow implements [kernel.Limiter]. An error (the server down) leaves
// the call refused by the kernel: limits fail closed.
func (l *Limiter) Allow(ctx context.Context, principal, capability string, limit int, window time.Duration) (bool, time.Duration, error) {
	if limit < 0 {
		return true, 0, nil
	}
	if limit == 0 {
		return false, window, nil
	}
	var id [8]byte
	rand.Read(id[:])
	key := l.c.prefix + "limit:" + strconv.Itoa(len(principal)) + ":" + principal + ":" + capability
	res, err := allowScript.Run(ctx, l.c.rdb, []string{key}, max(window.Microseconds(), 1), limit, hex.EncodeToString(id[:])).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("redis: rate limit: %w", err)
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("redis: rate limit: the script returned %d values", len(res))
	}
	if res[0] == 1 {
		return true, 0, nil
	}
	return false, max(time.Duration(res[1])*time.Microsecond, 0), nil
}

// Revocations is a [kernel.Revocations] in Redis: one key per revoked or
// used grant id, expiring with the grant.
type Revocations struct{ c *Client }

var _ kernel.Revocations = (*Revocations)(nil)

// ttl is how long an entry for a grant expiring at until is kept; at
// least a millisecond, so that a grant expiring now is still recorded.
func ttl(until time.Time) time.Duration { return max(time.Until(until), time.Millisecond) }

// Revoke implements [kernel.Revocations].
func (r *Revocations) Revoke(ctx context.Context, id string, until time.Time) error {
	if err := r.c.rdb.Set(ctx, r.c.prefix+"revoked:"+id, 1, ttl(until)).Err(); err != nil {
		return fmt.Errorf("redis: revoke: %w", err)
	}
	return nil
}

// Revoked implements [kernel.Revocations].
func (r *Revocations) Revoked(ctx context.Context, id string) (bool, error) {
	n, err := r.c.rdb.Exists(ctx, r.c.prefix+"revoked:"+id).Result()
	if err != nil {
		return false, fmt.Errorf("redis: revoked: %w", err)
	}
	return n > 0, nil
}

// Use implements [kernel.Revocations]: SET NX, so that of replicas
// redeeming one grant at once exactly one sees its first use.
func (r *Revocations) Use(ctx context.Context, id string, until time.Time) (bool, error) {
	ok, err := r.c.rdb.SetNX(ctx, r.c.prefix+"used:"+id, 1, ttl(until)).Result()
	if err != nil {
		return false, fmt.Errorf("redis: use: %w", err)
	}
	return ok, nil
}

// Meter returns the [kernel.BatchMeter] on c.
func (c *Client) Meter() *Meter { return &Meter{c: c} }

// Meter is a [kernel.BatchMeter] in Redis: one key per name and window,
// reserved by one script on the server so that replicas racing for the
// last of a budget never together pass it. A request's reservations are
// one script over all its keys, all or none, and its settlements
// another: one round trip each.
type Meter struct{ c *Client }

var _ kernel.BatchMeter = (*Meter)(nil)

// reserveScript: KEYS[1] the window's total; ARGV amount, limit, TTL in
// ms (0: none). Returns 1 when reserved, 0 when over the limit.
var reserveScript = goredis.NewScript(`
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
if total + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
`)

// settleScript: KEYS[1] the window's total; ARGV delta. A window that
// has ended is left alone; the total never goes below zero.
var settleScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local v = tonumber(redis.call('INCRBYFLOAT', KEYS[1], ARGV[1]))
if v < 0 then redis.call('SET', KEYS[1], '0', 'KEEPTTL') end
return 1
`)

func (m *Meter) key(name string, start time.Time) string {
	return m.c.prefix + "meter:" + kernel.WindowKey(name, start)
}

// Reserve implements [kernel.Meter]. The window is the process's clock's;
// replicas' clocks agree to well within a window.
func (m *Meter) Reserve(ctx context.Context, name string, amount, limit float64, period time.Duration) (time.Time, bool, time.Duration, error) {
	now := time.Now()
	start := kernel.Window(now, period)
	var ttlMS int64
	var reset time.Duration
	if period > 0 {
		reset = start.Add(period).Sub(now)
		ttlMS = reset.Milliseconds() + 1000
	}
	ok, err := reserveScript.Run(ctx, m.c.rdb, []string{m.key(name, start)}, strconv.FormatFloat(amount, 'g', -1, 64), strconv.FormatFloat(limit, 'g', -1, 64), ttlMS).Int()
	if err != nil {
		return start, false, 0, fmt.Errorf("redis: meter: %w", err)
	}
	if ok != 1 {
		return start, false, reset, nil
	}
	return start, true, 0, nil
}

// Settle implements [kernel.Meter].
func (m *Meter) Settle(ctx context.Context, name string, delta float64, _ time.Duration, start time.Time) error {
	if err := settleScript.Run(ctx, m.c.rdb, []string{m.key(name, start)}, strconv.FormatFloat(delta, 'g', -1, 64)).Err(); err != nil {
		return fmt.Errorf("redis: meter: %w", err)
	}
	return nil
}

// reserveAllScript: KEYS the windows' totals; ARGV three per key:
// amount, limit, TTL in ms (0: none). Every total is checked before any
// is added to, so that a request over one limit takes nothing from the
// others. Returns 0 when all were reserved, else the 1-based index of
// the first over its limit.
var reserveAllScript = goredis.NewScript(`
for i = 1, #KEYS do
	local total = tonumber(redis.call('GET', KEYS[i]) or '0')
	if total + tonumber(ARGV[3*i-2]) > tonumber(ARGV[3*i-1]) then return i end
end
for i = 1, #KEYS do
	redis.call('INCRBYFLOAT', KEYS[i], ARGV[3*i-2])
	if tonumber(ARGV[3*i]) > 0 then redis.call('PEXPIRE', KEYS[i], ARGV[3*i]) end
end
return 0
`)

// settleAllScript: KEYS the windows' totals; ARGV one delta per key. A
// window that has ended is left alone; a total never goes below zero.
var settleAllScript = goredis.NewScript(`
for i = 1, #KEYS do
	if redis.call('EXISTS', KEYS[i]) == 1 then
		local v = tonumber(redis.call('INCRBYFLOAT', KEYS[i], ARGV[i]))
		if v < 0 then redis.call('SET', KEYS[i], '0', 'KEEPTTL') end
	end
end
return 1
`)

// ReserveAll implements [kernel.BatchMeter]: one script, one round trip.
// (The keys of one request may hash to different slots: the meter is for
// one Redis server or a primary with replicas, not Redis Cluster.)
func (m *Meter) ReserveAll(ctx context.Context, rs []kernel.Reservation) ([]time.Time, int, time.Duration, error) {
	if len(rs) == 0 {
		return nil, -1, 0, nil
	}
	now := time.Now()
	starts := make([]time.Time, len(rs))
	keys := make([]string, len(rs))
	args := make([]any, 0, 3*len(rs))
	for i, r := range rs {
		starts[i] = kernel.Window(now, r.Period)
		keys[i] = m.key(r.Name, starts[i])
		var ttlMS int64
		if r.Period > 0 {
			ttlMS = starts[i].Add(r.Period).Sub(now).Milliseconds() + 1000
		}
		args = append(args, strconv.FormatFloat(r.Amount, 'g', -1, 64), strconv.FormatFloat(r.Limit, 'g', -1, 64), ttlMS)
	}
	n, err := reserveAllScript.Run(ctx, m.c.rdb, keys, args...).Int()
	if err != nil {
		return nil, -1, 0, fmt.Errorf("redis: meter: %w", err)
	}
	if n < 0 || n > len(rs) {
		return nil, -1, 0, fmt.Errorf("redis: meter: the script refused reservation %d of %d", n, len(rs))
	}
	if n > 0 {
		var reset time.Duration
		if p := rs[n-1].Period; p > 0 {
			reset = starts[n-1].Add(p).Sub(now)
		}
		return nil, n - 1, reset, nil
	}
	return starts, -1, 0, nil
}

// SettleAll implements [kernel.BatchMeter]: one script, one round trip.
func (m *Meter) SettleAll(ctx context.Context, ss []kernel.Settlement) error {
	if len(ss) == 0 {
		return nil
	}
	keys := make([]string, len(ss))
	args := make([]any, len(ss))
	for i, st := range ss {
		keys[i] = m.key(st.Name, st.Start)
		args[i] = strconv.FormatFloat(st.Delta, 'g', -1, 64)
	}
	if err := settleAllScript.Run(ctx, m.c.rdb, keys, args...).Err(); err != nil {
		return fmt.Errorf("redis: meter: %w", err)
	}
	return nil
}
