// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package direct is an HTTP/1.1 client transport that makes each round
// trip on the caller's goroutine, for backends reached over plain HTTP:
// the vLLM, SGLang, llama.cpp and Ollama servers a gateway fronts on
// its own host or network.
//
// # Why
//
// [net/http.Transport] gives every connection a goroutine that writes
// requests and one that reads answers, and hands each request and
// answer between them and the caller over channels: a round trip is
// several goroutine hand-offs, each of which may wake a thread. At a few
// hundred requests a second, with the caches cold between requests,
// those wake-ups and the transport's code cost more than a gateway's own
// parsing. A [Transport] writes the request and reads the answer on the
// caller's goroutine, with net/http's own writer
// ([net/http.Request.Write]) and reader ([net/http.ReadResponse]), so
// the bytes on the wire are the ones the standard transport would send
// and read, but for the gzip it asks for (a Transport asks for none).
//
// # What goes elsewhere
//
// Anything but a plain http:// request goes to [Config.Fallback]: HTTPS
// (and with it HTTP/2), a request that a proxy from [Config.Proxy]
// would carry, CONNECT or another uncommon method, a request that
// expects 100-continue, and a header net/http would refuse (a name that
// is not a token, a control character in a value), which the fallback
// then refuses.
//
// # Connections
//
// Idle connections are kept per host, most recently used first, up to
// [Config.MaxIdlePerHost], and closed after [Config.IdleTimeout]. Before
// a connection is used again it is checked without blocking for a
// close from the server (servers such as uvicorn close idle
// connections after a few seconds). If a reused connection still
// fails, a request is sent once more on a new connection when its
// write failed (a server cannot act on a request it did not receive
// whole) or when nothing of an answer came and net/http would send it
// again (an idempotent method or an idempotency key). A connection goes
// back to the pool when its answer's body has been read to its end; a
// body closed before that closes it. An answer's heads are bounded to
// 10 MiB, as net/http bounds them by default.
//
// Example:
//
//	t := direct.New(&direct.Config{Fallback: http.DefaultTransport, Proxy: http.ProxyFromEnvironment})
//	client := &http.Client{Transport: t}
//	resp, err := client.Post("http://127.0.0.1:8000/v1/chat/completions", "application/json", body)
package direct
