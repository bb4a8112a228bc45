// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/mcpserver"
)

// defaultServeConfig is what `toolgate serve` runs without --config, and
// what --print-config prints: the built-in demo tracker, reads open to
// anyone, writes with a justification, deletes for the admin token.
//
//go:embed serve.yaml
var defaultServeConfig []byte

func runServe(e *env, args []string) error {
	fs := newFlags(e, "serve", "[--config FILE] [--stdio] [--addr HOST:PORT] [--db FILE] [--print-config]",
		"Serve tools over MCP, every call through the kernel: streamable HTTP at http://ADDR/mcp\n"+
			"by default, stdio with --stdio. Without --config it serves the built-in demo task\n"+
			"tracker. /healthz and /metrics (Prometheus) are served beside /mcp. A config with\n"+
			"providers also serves the model gateway on the same listener: POST /v1/chat/completions,\n"+
			"/v1/responses, /v1/messages and /generate, and GET /v1/models; server.ui adds the web\n"+
			"console at /ui/. Every route authenticates with auth.tokens (bearer, x-api-key or\n"+
			"x-goog-api-key; the console by its login). On SIGTERM or Ctrl-C running requests get\n"+
			"server.shutdown_timeout to finish, streams still open then end with their API's error\n"+
			"event, and serve exits 0; a second signal ends the wait at once.")
	configPath := fs.String("config", "", "the YAML config `FILE`; without it, the built-in demo")
	stdio := fs.Bool("stdio", false, "serve one client on stdin/stdout instead of HTTP")
	addr := fs.String("addr", "", "listen on `HOST:PORT` instead of the config's address")
	printConfig := fs.Bool("print-config", false, "print the config in effect (the demo's, with every other section as commented examples, without --config) and exit")
	dbPath := fs.String("db", "", "the audit log SQLite `FILE` instead of the config's")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	data, name := defaultServeConfig, "builtin:demo-config"
	if *configPath != "" {
		var err error
		if data, name, err = readInput(e, *configPath); err != nil {
			return err
		}
	}
	f, err := config.Parse(data, name)
	if err != nil {
		return err
	}
	if *printConfig { // checked first, so what is printed would run
		_, err := e.stdout.Write(data)
		return err
	}
	if *addr != "" {
		f.Server.Addr = *addr
	}
	mcpserver.TuneGC(e.getenv)
	lw := newLogWriter(e.stderr)
	defer lw.SetBuffered(false)
	log := slog.New(newFlushingHandler(newTextHandler(lw, &slog.HandlerOptions{Level: f.Server.SlogLevel()}), lw))
	s, err := f.BuildServing(e.ctx, &config.BuildOptions{Getenv: e.getenv, AuditDB: *dbPath, Logger: log})
	if err != nil {
		return buildError(err)
	}
	for p, env := range s.Built.UnsetTokens {
		log.Warn("token not set; its principal cannot connect over HTTP", "principal", p, "env", env)
	}
	if *stdio {
		log.Info("serving over stdio", "tools", len(s.MCP.Tools()), "principal", f.Auth.Local)
		err := s.MCP.Run(e.ctx, &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
		if cerr := s.Close(e.ctx); err == nil || errors.Is(err, context.Canceled) {
			err = cerr
		}
		return err
	}
	return serveHTTP(e, f, s, log, lw)
}

// serveHTTP opens the listener, says what is served where, and runs
// until the context ends; a second signal during the drain ends it at
// once.
func serveHTTP(e *env, f *config.File, s *config.Serving, log *slog.Logger, lw *logWriter) error {
	at, err := s.Server.Listen()
	if err != nil {
		s.Close(e.ctx)
		return fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	for _, n := range s.Notices {
		if n.Warn {
			log.Warn(n.Text)
		} else {
			fmt.Fprintf(e.stderr, "toolgate: %s\n", n.Text)
		}
	}
	if s.Gateway != nil {
		fmt.Fprintf(e.stderr, "toolgate: model gateway at http://%s/v1 (%d models)\n", at, len(s.Gateway.Models()))
	}
	if s.Console != nil {
		fmt.Fprintf(e.stderr, "toolgate: console at http://%s/ui/\n", at)
	}
	if f.Server.DebugAddr != "" {
		fmt.Fprintf(e.stderr, "toolgate: pprof at http://%s/debug/pprof/\n", f.Server.DebugAddr)
	}
	for p, tok := range s.Built.GeneratedTokens {
		fmt.Fprintf(e.stderr, "toolgate: bearer token for principal %q: %s\n", p, tok)
	}
	path := f.Server.Path
	if path == "" {
		path = config.DefaultPath
	}
	// Last, so that whoever waits for this line has the rest.
	fmt.Fprintf(e.stderr, "toolgate: serving %d tools over MCP at http://%s%s\n", len(s.MCP.Tools()), at, path)
	lw.SetBuffered(true)
	go func() {
		<-e.ctx.Done()
		lw.SetBuffered(false)
		log.Info("shutting down; a second signal stops at once")
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(again)
		select {
		case <-again:
			log.Warn("second signal: ending open requests now")
			s.Server.Close()
		case <-s.Server.Done():
		}
	}()
	if err := s.Run(e.ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
