// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/server/admin"
)

const keysUsage = "Usage: toolgate keys create|list|show|revoke --config FILE ..."

func runKeys(e *env, args []string) error {
	if len(args) == 0 || !slices.Contains([]string{"create", "list", "show", "revoke"}, args[0]) {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(e.stdout, keysUsage+"\n\nKeys the model gateway takes besides auth.tokens, made at run time and kept\n"+
				"(as SHA-256 hashes) in the keys store of the config (keys.db, else the audit log's\n"+
				"file; or PostgreSQL with keys.store postgres, for replicas); every running serve\n"+
				"on the store sees a new or revoked key within a second.\n"+
				"Run 'toolgate keys create --help' (list, show, revoke) for flags.")
			return nil
		}
		fmt.Fprintln(e.stderr, keysUsage)
		return ErrUsage
	}
	sub := args[0]
	var usageArgs, desc string
	switch sub {
	case "create":
		usageArgs, desc = "--config FILE --principal ID [--models GLOB]... [--rpm N] [--tpm N] [--max-parallel N] [--budget-usd X] [--budget-tokens N] [--period DURATION] [--expires DURATION|TIME] [--meta K=V]...",
			"Make a key for a principal of the config and print it once, with its id, as JSON:\n"+
				"{\"key\": \"tg-…\", \"id\": \"key_…\", …}. Only its hash is kept. --models limits the\n"+
				"public model names it may use (globs such as 'gpt*'); --rpm the requests a minute;\n"+
				"--max-parallel the requests in flight at once; --tpm the tokens a minute;\n"+
				"--budget-usd and --budget-tokens what it may spend per --period (1h, 1d, 30d;\n"+
				"none: for ever; USD priced by the config's pricing); --expires a lifetime (30d,\n"+
				"12h) or an RFC 3339 time. Each request reserves its bound before it goes out and\n"+
				"settles on the usage the backend reports."
	case "list":
		usageArgs, desc = "--config FILE [--json]", "List the keys: id, principal, models, limits, created, expires, revoked."
	case "show":
		usageArgs, desc = "--config FILE [--json] ID", "Show one key."
	case "revoke":
		usageArgs, desc = "--config FILE ID", "Revoke a key: every serve on the store refuses it within a second."
	}
	fs := newFlags(e, "keys "+sub, usageArgs, desc)
	cfgPath := fs.String("config", "", "the YAML config `FILE` naming the keys store")
	asJSON := fs.Bool("json", false, "print JSON")
	principal := fs.String("principal", "", "create: the principal `ID` the key acts for")
	var models, meta stringList
	fs.Var(&models, "models", "create: a model name `GLOB` the key may use (repeatable; none: every model)")
	fs.Var(&meta, "meta", "create: metadata `K=V` kept with the key (repeatable)")
	rpm := fs.Int("rpm", 0, "create: requests per minute, `N` (0: no bound)")
	parallel := fs.Int("max-parallel", 0, "create: requests in flight at once, `N` (0: no bound)")
	tpm := fs.Int64("tpm", 0, "create: tokens per minute, `N` (0: no bound)")
	budgetUSD := fs.Float64("budget-usd", 0, "create: USD the key may spend per period, `X` (0: no bound)")
	budgetTokens := fs.Int64("budget-tokens", 0, "create: tokens the key may use per period, `N` (0: no bound)")
	period := fs.String("period", "", "create: the budgets' `DURATION` (1h, 1d, 30d); empty: for ever")
	expires := fs.String("expires", "", "create: a lifetime such as 30d or 12h, or an RFC 3339 `TIME`")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	f, store, err := openStore(e, *cfgPath, (*config.File).OpenKeys, "has no keys store")
	if err != nil {
		return err
	}
	defer store.Close()
	switch sub {
	case "create":
		if len(pos) > 0 {
			return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
		}
		k := &kernel.Key{Principal: *principal, Models: models, RPM: *rpm, MaxParallel: *parallel, TPM: *tpm,
			Budget: kernel.Budget{USD: *budgetUSD, Tokens: *budgetTokens}}
		if *period != "" {
			d, err := kernel.ParseSpan(*period)
			if err != nil {
				return fmt.Errorf("%w: --period: %w", ErrUsage, err)
			}
			k.Budget.Period = d
		}
		return keysCreate(e, f, store, k, meta, *expires)
	case "list":
		keys, err := store.Keys(e.ctx)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		return printKeys(e, keys, *asJSON)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: keys %s takes one key id", ErrUsage, sub)
	}
	if sub == "revoke" {
		if err := store.RevokeKey(e.ctx, pos[0], time.Now()); err != nil {
			return keyError(err, pos[0])
		}
		fmt.Fprintf(e.stderr, "toolgate: key %s revoked\n", pos[0])
		return nil
	}
	k, err := store.KeyByID(e.ctx, pos[0])
	if err != nil {
		return keyError(err, pos[0])
	}
	return printKeys(e, []kernel.Key{*k}, *asJSON)
}

// openStore reads the config at path and opens one of its stores with
// open; a config without one is a usage error saying it lacks what.
func openStore[S interface{ Close() error }](e *env, path string, open func(*config.File, context.Context, string, func(string) string) (S, error), lacks string) (*config.File, S, error) {
	var none S
	if path == "" {
		return nil, none, fmt.Errorf("%w: --config is required", ErrUsage)
	}
	data, name, err := readInput(e, path)
	if err != nil {
		return nil, none, err
	}
	f, err := config.Parse(data, name)
	if err != nil {
		return nil, none, err
	}
	s, err := open(f, e.ctx, "", e.getenv)
	if err != nil {
		return nil, none, buildError(err)
	}
	if any(s) == any(none) { // a nil store: the config names none
		return nil, none, fmt.Errorf("%w: %s %s: set keys.store postgres, keys.db or audit.db", ErrUsage, name, lacks)
	}
	return f, s, nil
}

func keyError(err error, id string) error {
	if errors.Is(err, kernel.ErrNoKey) {
		return fmt.Errorf("%w: no key %q", ErrProblem, id)
	}
	return fmt.Errorf("%w: %w", ErrRuntime, err)
}

func keysCreate(e *env, f *config.File, store kernel.KeyStore, want *kernel.Key, meta []string, expires string) error {
	principal := want.Principal
	if principal == "" {
		return fmt.Errorf("%w: --principal is required", ErrUsage)
	}
	if len(f.Principals) > 0 && !slices.ContainsFunc(f.Principals, func(p config.Principal) bool { return p.ID == principal }) {
		return fmt.Errorf("%w: principal %q is not in the config's principals", ErrUsage, principal)
	}
	secret, k := kernel.NewKey(principal)
	k.Models, k.RPM, k.MaxParallel, k.TPM, k.Budget = want.Models, want.RPM, want.MaxParallel, want.TPM, want.Budget
	for _, kv := range meta {
		name, v, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return fmt.Errorf("%w: --meta %q is not K=V", ErrUsage, kv)
		}
		if k.Metadata == nil {
			k.Metadata = map[string]string{}
		}
		k.Metadata[name] = v
	}
	if expires != "" {
		t, err := kernel.ParseExpiry(expires, k.Created)
		if err != nil {
			return fmt.Errorf("%w: --expires: %w", ErrUsage, err)
		}
		k.Expires = t
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err := store.CreateKey(e.ctx, k); err != nil {
		return fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	// The secret first, then the key's fields as the admin API shows them.
	fields, _ := json.Marshal(admin.View(k))
	b, _ := json.MarshalIndent(json.RawMessage(append([]byte(`{"key":`+strconvQuote(secret)+`,`), fields[1:]...)), "", "  ")
	fmt.Fprintf(e.stdout, "%s\n", b)
	fmt.Fprintln(e.stderr, "toolgate: the key is shown once; only its hash is kept")
	return nil
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func printKeys(e *env, keys []kernel.Key, asJSON bool) error {
	if asJSON {
		views := []admin.KeyView{}
		for i := range keys {
			views = append(views, admin.View(&keys[i]))
		}
		b, _ := json.MarshalIndent(views, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPRINCIPAL\tMODELS\tRPM\tTPM\tPARALLEL\tBUDGET\tCREATED\tEXPIRES\tREVOKED")
	for _, k := range keys {
		models := strings.Join(k.Models, ",")
		if models == "" {
			models = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Principal, models, bound(k.RPM), bound(int(k.TPM)), bound(k.MaxParallel),
			budget(k.Budget), k.Created.Format(time.RFC3339), when(k.Expires), when(k.Revoked))
	}
	return tw.Flush()
}

func bound(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func budget(b kernel.Budget) string {
	var parts []string
	if b.USD > 0 {
		parts = append(parts, fmt.Sprintf("$%g", b.USD))
	}
	if b.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", b.Tokens))
	}
	if len(parts) == 0 {
		return "-"
	}
	per := "ever"
	if b.Period > 0 {
		per = kernel.FormatSpan(b.Period)
	}
	return strings.Join(parts, "+") + "/" + per
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
