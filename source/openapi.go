// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package source

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/openapi"
	"github.com/toolgate/toolgate/source/demo"
)

// OpenAPIConfig describes an OpenAPI source.
type OpenAPIConfig struct {
	// Name identifies the source in the executor's errors and logs.
	Name string
	// Spec is the spec's file path or http(s) URL, or [demo.SpecLocation]
	// for the demo tracker's spec. Required.
	Spec string
	// Server is the API's base URL, overriding the spec's servers.
	Server string
	// AllowPrivate allows calls to (and a spec URL on) private, loopback
	// and link-local addresses, which are refused by default.
	AllowPrivate bool
	// Tags and Operations, when set, keep only the operations with one of
	// these tags or operationIds.
	Tags       []string
	Operations []string
	// Timeout bounds one call to the API. If zero, the executor's default.
	Timeout time.Duration
	// TotalTimeout bounds a whole call, retries included; MaxResultTokens
	// caps the text a result hands the model; AllowRedirectsAnywhere lets
	// redirects leave the spec's servers. See [openapi.ExecConfig].
	TotalTimeout           time.Duration
	MaxResultTokens        int
	AllowRedirectsAnywhere bool
	// Credentials authenticate calls; nil means none.
	Credentials *openapi.Credentials
	// Transport makes the HTTP requests. If nil, the executor's own
	// guarded transport.
	Transport http.RoundTripper
}

// OpenAPI is a source whose tools are a spec's operations, each calling
// the API through one executor.
type OpenAPI struct {
	// fixed at creation
	api  *openapi.API
	caps []kernel.Capability
}

// NewOpenAPI returns the source of a loaded spec, run by x (an
// [openapi.Executor] over the same api, usually). Each operation keeps
// the safety class the connector gave it: GET reads, DELETE cannot be
// undone, the rest write.
func NewOpenAPI(api *openapi.API, x kernel.Executor) *OpenAPI {
	caps := make([]kernel.Capability, 0, len(api.Operations))
	for _, op := range api.Operations {
		caps = append(caps, kernel.Capability{
			Definition: op.Definition,
			Safety:     kernel.Safety(op.Safety),
			Executor:   x,
		})
	}
	return &OpenAPI{api: api, caps: caps}
}

// LoadOpenAPI loads cfg.Spec and returns its operations as a source.
func LoadOpenAPI(ctx context.Context, cfg *OpenAPIConfig) (*OpenAPI, error) {
	if cfg == nil || cfg.Spec == "" {
		return nil, fmt.Errorf("%w: openapi: no spec", ErrInvalidConfig)
	}
	lc := &openapi.Config{Include: openapi.Filter{Tags: cfg.Tags, OperationIDs: cfg.Operations}}
	var api *openapi.API
	var err error
	switch {
	case cfg.Spec == demo.SpecLocation:
		api, err = openapi.Load(ctx, demo.Spec(), cfg.Spec, lc)
	case strings.HasPrefix(cfg.Spec, "https://") || strings.HasPrefix(cfg.Spec, "http://"):
		lc.AllowRemote = []string{cfg.Spec}
		lc.AllowPrivate = cfg.AllowPrivate
		api, err = openapi.LoadURL(ctx, cfg.Spec, lc)
	default:
		api, err = openapi.LoadFile(ctx, cfg.Spec, lc)
	}
	if err != nil {
		return nil, err
	}
	x, err := openapi.NewExecutor(api, &openapi.ExecConfig{
		SourceID: cfg.Name, Server: cfg.Server, AllowOtherServers: cfg.Server != "",
		AllowPrivate: cfg.AllowPrivate, Credentials: cfg.Credentials, Timeout: cfg.Timeout,
		TotalTimeout: cfg.TotalTimeout, MaxResultTokens: cfg.MaxResultTokens,
		AllowRedirectsAnywhere: cfg.AllowRedirectsAnywhere, Transport: cfg.Transport,
	})
	if err != nil {
		return nil, err
	}
	return NewOpenAPI(api, x), nil
}

// API returns the loaded spec.
func (o *OpenAPI) API() *openapi.API { return o.api }

// Capabilities implements [Source].
func (o *OpenAPI) Capabilities() []kernel.Capability {
	return append([]kernel.Capability(nil), o.caps...)
}

// Close implements [Source]; an OpenAPI source holds nothing to close.
func (o *OpenAPI) Close() error { return nil }

// NewDemo returns the built-in demo task tracker as a source: its embedded
// spec, executed in-process against a fresh tracker, so it needs no network.
func NewDemo(ctx context.Context) (*OpenAPI, error) {
	api, err := openapi.Load(ctx, demo.Spec(), demo.SpecLocation, nil)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	x, err := openapi.NewExecutor(api, &openapi.ExecConfig{SourceID: "demo", Transport: demo.New().Transport(), MaxRetries: -1})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	return NewOpenAPI(api, x), nil
}
