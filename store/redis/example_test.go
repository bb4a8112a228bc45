// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redis_test

import (
	"context"
	"log"
	"os"

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
