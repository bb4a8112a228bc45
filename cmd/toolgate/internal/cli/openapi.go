// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/openapi"
	"github.com/toolgate/toolgate/tool"
)

func runOpenAPI(e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(e.stdout, `Usage: toolgate openapi tools SPEC [flags]
       toolgate openapi call  SPEC OPERATION [ARGS] [flags]

Turn a Swagger 2.0 or OpenAPI 3.x spec (JSON or YAML, a file, - for stdin,
or an http(s) URL) into tools, one per operation, or call one operation.

Run 'toolgate openapi tools --help' or 'toolgate openapi call --help'.
`)
		if len(args) == 0 {
			return fmt.Errorf("%w: %w", ErrUsage, errReported)
		}
		return nil
	}
	switch args[0] {
	case "tools":
		return runOpenAPITools(e, args[1:])
	case "call":
		return runOpenAPICall(e, args[1:])
	}
	return fmt.Errorf("%w: unknown openapi subcommand %q (want tools or call)", ErrUsage, args[0])
}

// specFlags are the loading flags both subcommands take.
type specFlags struct {
	allowRefs  stringList
	validate   *bool
	allowPriv  *bool
	maxDescLen *int
}

func addSpecFlags(fs *flag.FlagSet, sf *specFlags) {
	fs.Var(&sf.allowRefs, "allow-ref", "also read external $refs from `dir` or URL prefix (repeatable; the spec's own directory is always allowed)")
	sf.validate = fs.Bool("validate", false, "validate the spec with kin-openapi (example values excepted) and print its findings as warnings")
	sf.allowPriv = fs.Bool("allow-private", false, "allow private, loopback and link-local addresses (for remote specs and calls)")
	sf.maxDescLen = fs.Int("max-description", 0, "trim tool descriptions to `n` characters (default 1024; negative: no limit)")
}

// loadSpec loads the spec named by arg: a file, - for stdin, or a URL.
func loadSpec(e *env, arg string, cfg *openapi.Config, sf *specFlags) (*openapi.API, string, error) {
	cfg.Validate = *sf.validate
	cfg.AllowPrivate = *sf.allowPriv
	cfg.MaxDescription = *sf.maxDescLen
	for _, r := range sf.allowRefs {
		if strings.HasPrefix(r, "http://") || strings.HasPrefix(r, "https://") {
			cfg.AllowRemote = append(cfg.AllowRemote, r)
		} else {
			cfg.AllowRefDirs = append(cfg.AllowRefDirs, r)
		}
	}
	var api *openapi.API
	var err error
	name := arg
	switch {
	case strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://"):
		// Naming the URL on the command line is consent to fetch it and
		// the documents beside it.
		cfg.AllowRemote = append(cfg.AllowRemote, arg[:strings.LastIndexByte(arg, '/')+1])
		api, err = openapi.LoadURL(e.ctx, arg, cfg)
	case arg == "-" || arg == "":
		var data []byte
		data, name, err = readInput(e, arg)
		if err != nil {
			return nil, name, err
		}
		if wd, werr := os.Getwd(); werr == nil {
			cfg.AllowRefDirs = append(cfg.AllowRefDirs, wd)
		}
		api, err = openapi.Load(e.ctx, data, "", cfg)
	default:
		cfg.AllowRefDirs = append(cfg.AllowRefDirs, filepath.Dir(arg))
		api, err = openapi.LoadFile(e.ctx, arg, cfg)
	}
	if err != nil {
		if _, ok := errors.AsType[*openapi.SpecError](err); ok {
			return nil, name, fmt.Errorf("%w: %w", ErrUsage, err)
		}
		return nil, name, fmt.Errorf("%w: %s: %w", ErrUsage, name, err)
	}
	return api, name, nil
}

func runOpenAPITools(e *env, args []string) error {
	fs := newFlags(e, "openapi tools", "SPEC [--to FORMAT] [--strict] [--tag T]... [--include-generic] [flags]", `
Print one tool per operation of the spec SPEC (a file, - for stdin, or an
http(s) URL), in any definition format: `+formatList(outputFormats)+` (default canonical).
Each input property is marked with "x-toolgate-in" (path, query, header,
cookie or body). Deprecated operations are left out unless asked for.
Loading warnings (recursive schemas cut, output schemas dropped) and every
change made to fit the target go to stderr.`)
	to := fs.String("to", "canonical", "output `format`")
	strict := fs.Bool("strict", false, "apply the target's strict mode (OpenAI strict, Anthropic strict tool use)")
	var tags, xtags, paths, xpaths, methods, ops, xops stringList
	fs.Var(&tags, "tag", "keep operations with this `tag` (repeatable)")
	fs.Var(&xtags, "exclude-tag", "drop operations with this `tag` (repeatable)")
	fs.Var(&paths, "path", "keep operations whose path matches this `glob`; * stays in a segment, ** spans them (repeatable)")
	fs.Var(&xpaths, "exclude-path", "drop operations whose path matches this `glob` (repeatable)")
	fs.Var(&methods, "method", "keep operations with this HTTP `method` (repeatable)")
	fs.Var(&ops, "operation", "keep the operation with this operationId (repeatable)")
	fs.Var(&xops, "exclude-operation", "drop the operation with this operationId (repeatable)")
	deprecated := fs.Bool("include-deprecated", false, "keep deprecated operations")
	generic := fs.Bool("include-generic", false, "add a generic http_request tool limited to the spec's servers")
	var sf specFlags
	addSpecFlags(fs, &sf)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: openapi tools takes one SPEC, got %d", ErrUsage, len(pos))
	}
	toF, err := parseFormat(*to, outputFormats)
	if err != nil {
		return err
	}
	cfg := &openapi.Config{
		Include:           openapi.Filter{Tags: tags, Paths: paths, Methods: methods, OperationIDs: ops},
		Exclude:           openapi.Filter{Tags: xtags, Paths: xpaths, OperationIDs: xops},
		IncludeDeprecated: *deprecated,
		IncludeGeneric:    *generic,
	}
	api, name, err := loadSpec(e, pos[0], cfg, &sf)
	if err != nil {
		return err
	}
	for _, w := range api.Warnings {
		fmt.Fprintf(e.stderr, "%s: %s\n", name, w)
	}
	if len(api.Operations) == 0 {
		fmt.Fprintf(e.stderr, "%s: no operations selected (%d skipped)\n", name, api.Skipped)
	}
	out, warns, err := convert(&codec.Tools{Defs: api.Tools()}, toF, *strict, true)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUsage, name, err)
	}
	printWarnings(e, name, warns)
	_, err = e.stdout.Write(append(indent(out), '\n'))
	return err
}

// printWarnings prints conversion warnings, folding the ones every tool
// of a spec gets (a format with no place for titles, say) into one line
// per kind with a count.
func printWarnings(e *env, name string, warns []toolWarning) {
	type fold struct {
		w toolWarning
		n int
	}
	var folds []*fold
	byKey := map[string]*fold{}
	for _, w := range warns {
		rest, perTool := toolField(w.Pointer)
		if w.Tool == "" && perTool && strings.Contains(w.Code, "dropped") {
			// The message names the field; without the tool's name it is
			// the same for every tool that lost that field.
			msg := w.Message
			if i := strings.Index(msg, " of tool "); i > 0 {
				msg = msg[:i]
			}
			key := w.Code + " " + rest + " " + msg
			f := byKey[key]
			if f == nil {
				f = &fold{w: w}
				f.w.Pointer = rest
				f.w.Message = msg
				byKey[key] = f
				folds = append(folds, f)
			}
			f.n++
			continue
		}
		fmt.Fprintf(e.stderr, "%s: %s\n", name, w)
	}
	for _, f := range folds {
		fmt.Fprintf(e.stderr, "%s: %s (%d tools)\n", name, f.w.Warning, f.n)
	}
}

// toolField splits a pointer "/3/title" into "/title", reporting whether
// it names a field of one tool of a list.
func toolField(ptr string) (string, bool) {
	if len(ptr) < 2 || ptr[0] != '/' {
		return "", false
	}
	i := 1
	for i < len(ptr) && '0' <= ptr[i] && ptr[i] <= '9' {
		i++
	}
	if i == 1 || (i < len(ptr) && ptr[i] != '/') {
		return "", false
	}
	return ptr[i:], true
}

func runOpenAPICall(e *env, args []string) error {
	fs := newFlags(e, "openapi call", "SPEC OPERATION [ARGS] [--server URL] [--allow-private] [flags]", `
Call one operation of the spec SPEC and print the tool result as JSON
({"call_id","name","content":[...],"structured_content","is_error"}).
OPERATION is a tool name as 'openapi tools' prints it, or an operationId.
ARGS is a JSON object of arguments (default {}), or - to read it from stdin.
Calls go only to the spec's servers (or --server), and so do redirects
unless --allow-redirects-anywhere; private, loopback and link-local
addresses are refused, after DNS resolution and on every redirect, unless
--allow-private. --timeout bounds each attempt, --total-timeout the whole
call with its retries. Text over --max-result-tokens is cut with a note;
binary bodies are summarized by type, size and SHA-256. Exit status 1 when
the result is an error (an HTTP error status, a refused request, a
timeout).

Credentials come from the environment and are never printed:
  `+openapi.EnvBearerToken+`   bearer token (http bearer, OAuth2, OpenID Connect)
  `+openapi.EnvAPIKey+`        API key (apiKey schemes in header, query or cookie)
  `+openapi.EnvBasicUser+`     HTTP basic user name
  `+openapi.EnvBasicPass+`     HTTP basic password
  `+openapi.EnvClientID+`      OAuth2 client-credentials client id
  `+openapi.EnvClientSecret+`  OAuth2 client-credentials client secret
  `+openapi.EnvScopes+`         OAuth2 scopes, space- or comma-separated (default: the operation's)`)
	server := fs.String("server", "", "send the call to this base `URL` instead of the spec's first server")
	timeout := fs.Duration("timeout", 0, "time limit per attempt (default 30s; negative: none)")
	totalTimeout := fs.Duration("total-timeout", 0, "time limit for the whole call, retries and their waits included (default 60s; negative: none)")
	maxBytes := fs.Int64("max-response-bytes", 0, "cap on the response body read (default 1 MiB; negative: none)")
	maxTokens := fs.Int("max-result-tokens", 0, "cap on the text handed on, in estimated tokens of 4 bytes (default 25000; negative: none)")
	anywhere := fs.Bool("allow-redirects-anywhere", false, "follow redirects to any host the address guard allows, not only the spec's servers")
	var vars stringList
	fs.Var(&vars, "var", "set a server variable, `name=value` (repeatable)")
	var sf specFlags
	addSpecFlags(fs, &sf)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 || len(pos) > 3 {
		return fmt.Errorf("%w: openapi call takes SPEC OPERATION [ARGS]", ErrUsage)
	}
	cfg := &openapi.Config{IncludeDeprecated: true, IncludeGeneric: true}
	api, name, err := loadSpec(e, pos[0], cfg, &sf)
	if err != nil {
		return err
	}
	op := api.Operation(pos[1])
	if op == nil {
		for _, o := range api.Operations {
			if o.ID == pos[1] {
				op = o
				break
			}
		}
	}
	if op == nil {
		return fmt.Errorf("%w: %s: no operation %q (run 'toolgate openapi tools %s' to list them)", ErrUsage, name, pos[1], pos[0])
	}
	argv := []byte("{}")
	if len(pos) == 3 {
		if pos[2] == "-" {
			if argv, _, err = readInput(e, "-"); err != nil {
				return err
			}
		} else {
			argv = []byte(pos[2])
		}
	}
	ec := &openapi.ExecConfig{
		Server:                 *server,
		AllowOtherServers:      *server != "",
		AllowPrivate:           *sf.allowPriv,
		Timeout:                *timeout,
		TotalTimeout:           *totalTimeout,
		MaxResponseBytes:       *maxBytes,
		MaxResultTokens:        *maxTokens,
		AllowRedirectsAnywhere: *anywhere,
	}
	for _, v := range vars {
		k, val, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("%w: --var %q is not name=value", ErrUsage, v)
		}
		if ec.ServerVariables == nil {
			ec.ServerVariables = map[string]string{}
		}
		ec.ServerVariables[k] = val
	}
	creds := openapi.CredentialsFromEnv(os.Getenv)
	ec.Credentials = &creds
	x, err := openapi.NewExecutor(api, ec)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	ctx := e.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := x.Execute(ctx, tool.Call{ID: "call_1", Name: op.Name, Arguments: json.RawMessage(argv)})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrProblem, err)
	}
	if err := writeJSON(e.stdout, res); err != nil {
		return err
	}
	if res.IsError {
		fmt.Fprintf(e.stderr, "toolgate openapi call: %s\n", firstLine(res.Text()))
		return fmt.Errorf("%w: %w", ErrProblem, errReported)
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
