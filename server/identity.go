// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package server

import (
	"context"

	"github.com/toolgate/toolgate/kernel"
)

// Identity is who a request acts for, as authentication found it.
type Identity struct {
	// Principal is the caller the kernel and the gateway see.
	Principal kernel.Principal
	// KeyID names the credential that authenticated the request without
	// holding anything of it: the token's id ([AuthConfig.KeyIDs]) or
	// the key's, the same for the console session it opened, empty for
	// anonymous requests.
	KeyID string
	// Anonymous is true for a request without credentials that a route
	// let in as [AuthConfig.Anonymous].
	Anonymous bool
	// Key is the key made at run time that authenticated the request,
	// with its limits; nil for config tokens, sessions and anonymous
	// requests. Shared: do not modify it.
	Key *kernel.Key
}

type identityKey struct{}

// WithIdentity returns ctx carrying id. The server does this for every
// authenticated request; tests and programs that mount a handler behind
// their own authentication call it themselves.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, &id)
}

// IdentityFrom returns the identity a request's context carries. Its
// Principal's Roles and Attributes are shared with other requests: read
// them, do not modify them.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(*Identity)
	if !ok {
		return Identity{}, false
	}
	return *id, true
}

// PrincipalFrom returns the principal a request acts for; false when the
// request was not authenticated (a route that takes anonymous requests
// still gives them the anonymous principal).
func PrincipalFrom(ctx context.Context) (kernel.Principal, bool) {
	id, ok := ctx.Value(identityKey{}).(*Identity)
	if !ok {
		return kernel.Principal{}, false
	}
	return id.Principal, true
}
