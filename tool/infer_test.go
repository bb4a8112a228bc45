// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInferBehavior(t *testing.T) {
	tests := []struct {
		name   string
		def    Definition
		action Action
		domain string
		side   *bool
	}{
		{name: "get-posts-is-a-read", def: Definition{Name: "get_posts"}, action: ActionRead, side: Bool(false)},
		{name: "create-post-is-a-create", def: Definition{Name: "create_post"}, action: ActionCreate, side: Bool(true)},
		{name: "post-message-is-a-send", def: Definition{Name: "post_message", Description: "Post a message to a Slack channel."}, action: ActionSend, domain: "communication", side: Bool(true)},
		{name: "capital-city-is-not-web", def: Definition{Name: "capital_city", Description: "Returns the capital city of a country."}, action: ActionRead, side: Bool(false)},
		{name: "camel-case", def: Definition{Name: "deleteUserAccount"}, action: ActionDelete, domain: "identity", side: Bool(true)},
		{name: "dotted-name", def: Definition{Name: "billing.list_invoices"}, action: ActionRead, domain: "finance", side: Bool(false)},
		{name: "description-verb", def: Definition{Name: "weather", Description: "Retrieves the current weather for a city."}, action: ActionRead, domain: "weather", side: Bool(false)},
		{name: "trailing-verb", def: Definition{Name: "user_delete"}, action: ActionDelete, domain: "identity", side: Bool(true)},
		{name: "middle-verb", def: Definition{Name: "weather_get_hourly"}, action: ActionRead, domain: "weather", side: Bool(false)},
		{name: "last-word-before-middle", def: Definition{Name: "user_post_count"}, action: ActionRead, domain: "identity", side: Bool(false)},
		{name: "web-search", def: Definition{Name: "web_search", Description: "Search the web."}, action: ActionSearch, domain: "web", side: Bool(false)},
		{name: "substring-is-not-a-word", def: Definition{Name: "getaway_planner", Description: "Plans a getaway."}, action: "", domain: ""},
		{name: "read-only-hint-wins", def: Definition{Name: "delete_preview", Annotations: &Annotations{ReadOnlyHint: Bool(true)}}, action: ActionRead, side: Bool(false)},
		{name: "destructive-hint", def: Definition{Name: "frobnicate", Annotations: &Annotations{DestructiveHint: Bool(true)}}, action: ActionDelete, side: Bool(true)},
		{name: "math", def: Definition{Name: "calculate_factorial"}, action: ActionCompute, domain: "math", side: Bool(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := InferBehavior(&tt.def)
			if got.Action != tt.action || got.Domain != tt.domain {
				t.Errorf("action, domain = %q, %q; want %q, %q", got.Action, got.Domain, tt.action, tt.domain)
			}
			if diff := cmp.Diff(tt.side, got.SideEffects); diff != "" {
				t.Errorf("side effects (-want +got):\n%s", diff)
			}
			if !got.Inferred {
				t.Error("Inferred = false")
			}
			// Deterministic: the same input gives the same output.
			if again := InferBehavior(&tt.def); !cmp.Equal(got, again) {
				t.Errorf("second run differs: %v vs %v", got, again)
			}
		})
	}
}

func TestInferBehaviorExplicitWins(t *testing.T) {
	explicit := &Behavior{Action: ActionExecute, Domain: "ops"}
	d := Definition{Name: "get_status", Behavior: explicit}
	if got := InferBehavior(&d); !cmp.Equal(got, *explicit) {
		t.Errorf("InferBehavior = %+v, want the explicit %+v", got, *explicit)
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"getUserID_v2", []string{"get", "user", "id", "v2"}},
		{"HTTPServer", []string{"http", "server"}},
		{"billing.list_invoices", []string{"billing", "list", "invoices"}},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words(tt.in)); diff != "" {
			t.Errorf("words(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
