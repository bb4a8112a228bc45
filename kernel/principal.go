// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import "slices"

// Principal is who a call is made for: a user, a service or an agent.
type Principal struct {
	// ID names the principal; it must be non-empty to be known.
	ID string `json:"id"`
	// Roles grant permissions: "reader", "writer", "admin", "pii_reader",
	// "secrets_reader", or any a policy rule names.
	Roles []string `json:"roles,omitempty"`
	// Attributes describe the principal, such as "tenant".
	Attributes map[string]string `json:"attributes,omitempty"`
}

// HasRole reports whether p has role.
func (p *Principal) HasRole(role string) bool {
	return slices.Contains(p.Roles, role)
}

// HasAnyRole reports whether p has one of roles.
func (p *Principal) HasAnyRole(roles ...string) bool {
	for _, r := range roles {
		if p.HasRole(r) {
			return true
		}
	}
	return false
}
