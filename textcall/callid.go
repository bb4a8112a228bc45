// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package textcall

import (
	"crypto/rand"
	"encoding/binary"
)

// callID returns the id of call n: the model's own when it gave a unique
// one, else a generated one.
func (s *Scanner) callID(n int, native string) string {
	if s.ids == nil {
		s.ids = make(map[string]bool)
	}
	if native != "" && !s.ids[native] {
		s.ids[native] = true
		return native
	}
	for try := 0; ; try++ {
		var id string
		if s.p.cfg.NewID != nil && try == 0 {
			id = s.p.cfg.NewID(n)
		} else {
			id = genID(s.idSeed(), uint64(n)+uint64(try)<<32, s.p.cfg.IDStyle)
		}
		if id != "" && !s.ids[id] {
			s.ids[id] = true
			return id
		}
	}
}

// idSeed returns the seed of this response's generated ids: Config.Seed
// when it is set, else one drawn at random the first time an id is made.
func (s *Scanner) idSeed() uint64 {
	if s.p.cfg.Seed != 0 {
		return s.p.cfg.Seed
	}
	if !s.seeded {
		var b [8]byte
		rand.Read(b[:]) // never fails (crypto/rand, Go 1.24 and later)
		s.seed, s.seeded = binary.LittleEndian.Uint64(b[:]), true
	}
	return s.seed
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// genID derives an id from seed and n with splitmix64, so ids are stable
// for a given seed and differ between responses given different seeds. The
// position is mixed in before the stream starts, so neighbouring calls
// get unrelated ids.
func genID(seed, n uint64, style IDStyle) string {
	mix := func(z uint64) uint64 {
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	x := mix(seed + 0x9e3779b97f4a7c15*mix(n+1))
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		return mix(x)
	}
	width, prefix := 24, "call_"
	if style == IDMistral {
		width, prefix = 9, ""
	}
	b := make([]byte, 0, len(prefix)+width)
	b = append(b, prefix...)
	for len(b) < len(prefix)+width {
		v := next()
		for k := 0; k < 10 && len(b) < len(prefix)+width; k++ {
			b = append(b, alnum[v%62])
			v /= 62
		}
	}
	return string(b)
}
