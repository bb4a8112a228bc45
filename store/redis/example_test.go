// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redis_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/store/redis"
)

// Each replica builds its kernel with the limiter and the grants'
// revocations on one Redis server. (Not run: it needs a server.)
func ExampleOpen() {
	ctx := context.Background()
	c, err := redis.Open(ctx, os.Getenv("TOOLGATE_REDIS_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	grants, err := kernel.NewGrants(&kernel.GrantConfig{Key: []byte(os.Getenv("TOOLGATE_GRANT_KEY")), Revocations: c.Revocations()})
	if err != nil {
		log.Fatal(err)
	}
	k, err := kernel.New(&kernel.Config{Limiter: c.Limiter(), Grants: grants})
	if err != nil {
		log.Fatal(err)
	}
	_ = k // register tools and serve calls
}

// A request's key's tokens per minute and its budget, reserved in one
// round trip, all or none, then settled on what the request used. (Not
// run: it needs a server.)
func ExampleMeter_ReserveAll() {
	ctx := context.Background()
	c, err := redis.Open(ctx, os.Getenv("TOOLGATE_REDIS_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	m := c.Meter()
	rs := []kernel.Reservation{
		{Name: "key:key_5f0c2a91d4e7b318/tpm", Amount: 1040, Limit: 100000, Period: time.Minute},
		{Name: "key:key_5f0c2a91d4e7b318/usd", Amount: 0.0021, Limit: 20, Period: 24 * time.Hour},
	}
	starts, refused, reset, err := m.ReserveAll(ctx, rs)
	if err != nil {
		log.Fatal(err) // the server is down: refuse the request (503)
	}
	if refused >= 0 {
		fmt.Printf("%s is spent; it renews in %v\n", rs[refused].Name, reset)
		return
	}
	// ... the request went out and used 700 tokens, $0.0014 ...
	err = m.SettleAll(ctx, []kernel.Settlement{
		{Name: rs[0].Name, Delta: 700 - rs[0].Amount, Period: rs[0].Period, Start: starts[0]},
		{Name: rs[1].Name, Delta: 0.0014 - rs[1].Amount, Period: rs[1].Period, Start: starts[1]},
	})
	if err != nil {
		log.Fatal(err)
	}
}
