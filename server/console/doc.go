// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package console is toolgate serve's web console at /ui/ (server.ui:
// true): the tools with a form that runs a call through the kernel as the
// logged-in principal, a live feed of calls and gateway requests over
// server-sent events, the audit trail with search and a chain check,
// per-provider latency and error charts, and what the gateway's requests
// used and cost per key, principal, model or provider, day by day, with
// each key's daily budget ([Config.Spend], [Config.Keys]).
//
// The front end is plain HTML, CSS and JavaScript embedded in the binary:
// no framework, nothing fetched from elsewhere, a Content-Security-Policy
// of 'self'. Logging in takes one of the server's bearer tokens, or a key
// made at run time, whose principal has the console's role (admin by
// default) and sets a session cookie (HttpOnly, SameSite=Strict, path
// /ui; a key's session ends when the key is revoked or expires); a
// refused login says why. Every API POST must also
// carry the X-Toolgate-Console header, which a browser sends cross-origin
// only after a CORS preflight the console never grants. Failed logins are
// throttled. Everything is bounded: the feed keeps the last 500 events,
// at most 16 live feeds are open and one that falls 64 events behind is
// dropped (the browser reconnects and replays), an audit search returns
// at most 500 records, a spend report at most 90 days and 50 groups (the
// rest summed as "other"), sessions are capped.
package console
