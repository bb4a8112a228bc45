// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package main

import (
	"math/bits"
	"time"
)

// subBuckets is how many buckets each power of two is cut into: a value
// is kept to within 1/1024 (0.1%) of itself, 1 µs at 1 ms. (At 1/64 a
// p50 near 1 ms moved in steps of 16 µs, a third of the 50 µs the added
// p50 is judged by.)
const (
	subBits    = 10
	subBuckets = 1 << subBits
)

// histogram counts durations in log-linear buckets: exact below 2,048 ns,
// then 1,024 buckets for every power of two, so its size is fixed
// (432 KiB) whatever it records (up to 2^63 ns). The zero value is ready;
// not safe for concurrent use.
type histogram struct {
	counts [(64 - subBits) * subBuckets]uint64
	n      uint64
	sum    time.Duration
	max    time.Duration
}

func bucketOf(v uint64) int {
	shift := max(0, bits.Len64(v)-(subBits+1))
	return shift*subBuckets + int(v>>shift)
}

// lowOf is the smallest value bucket i holds; highOf the largest.
func lowOf(i int) uint64 {
	if i < 2*subBuckets {
		return uint64(i)
	}
	shift := i/subBuckets - 1
	return uint64(i-shift*subBuckets) << shift
}

func highOf(i int) uint64 { return lowOf(i+1) - 1 }

// record adds one duration; negative ones count as zero.
func (h *histogram) record(d time.Duration) {
	d = max(d, 0)
	h.counts[bucketOf(uint64(d))]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

// quantile returns the q-quantile (0 < q ≤ 1) as the middle of its
// bucket, never above the largest value recorded; zero when empty.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			mid := lowOf(i) + (highOf(i)-lowOf(i))/2
			return min(time.Duration(mid), h.max)
		}
	}
	return h.max
}

// mean returns the mean; zero when empty.
func (h *histogram) mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}
