// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package console is toolgate serve's web console at /ui/ (server.ui:
// true): the tools with a form that runs a call through the kernel as the
// logged-in principal, a live feed of calls and gateway requests over
// server-sent events, the audit trail with search and a chain check, and
// per-provider latency and error charts.
//
// The front end is plain HTML, CSS and JavaScript embedded in the binary:
// no framework, nothing fetched from elsewhere, a Content-Security-Policy
// of 'self'. Logging in takes one of the server's bearer tokens whose
// principal has the console's role (admin by default) and sets a session
// cookie (HttpOnly, SameSite=Strict, path /ui); every API POST must also
// carry the X-Toolgate-Console header, which a browser sends cross-origin
// only after a CORS preflight the console never grants. Failed logins are
// throttled. Everything is bounded: the feed keeps the last 500 events,
// at most 16 live feeds are open and one that falls 64 events behind is
// dropped (the browser reconnects and replays), an audit search returns
// at most 500 records, sessions are capped.
package console
