// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"time"

	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/server"
	"github.com/toolgate/toolgate/tool"
)

//go:embed ui
var uiFiles embed.FS

// Bounds of the console's state and answers.
const (
	maxAuditResults = 500
	maxAuditScan    = 5000
	maxCallBytes    = 64 << 10
	// csrfHeader must be on every API POST: a browser sends a custom
	// header cross-origin only after a CORS preflight, which the console
	// never grants, and the session cookie is SameSite=Strict besides.
	csrfHeader = "X-Toolgate-Console"
)

// AuditStore is what the console reads of the audit log: the chain, for
// verify, and a filtered listing.
type AuditStore interface {
	kernel.AuditStore
	List(ctx context.Context, f audit.Filter, fn func(*kernel.AuditRecord) error) error
}

// Config configures [New].
type Config struct {
	// Kernel runs the try-it calls, as the logged-in principal.
	Kernel *kernel.Kernel
	// SourceOf names each tool's source.
	SourceOf map[string]string
	// Feed is the live feed; see [Feed].
	Feed *Feed
	// Audit and AuditKey are the audit log and its chain key; nil Audit
	// turns the audit pages off.
	Audit    AuditStore
	AuditKey []byte
	// Auth checks the login form's token and holds the sessions; the
	// server resolves the session cookie of every request to /ui/ into
	// the identity the console reads ([server.IdentityFrom]). Its
	// failed-login throttle is per client address and shared with every
	// other route.
	Auth *server.Auth
	// Directory returns the principal with its roles, by id: the
	// token's principal is checked against Role through it. If nil, the
	// token's principal as it is.
	Directory func(id string) (kernel.Principal, bool)
	// Role is the role a principal needs. If empty, "admin".
	Role string
	// Spend is what the gateway's requests used and cost, for the spend
	// page; nil (a server without keys and providers) turns it off. Set
	// it only when there is a store: a nil pointer in it is not nil.
	Spend kernel.SpendStore
	// Keys gives the spend page each key's principal and budget. If
	// nil, the spend is shown without budgets.
	Keys kernel.KeyStore
}

// Console is the web console: its [Console.Routes] go on the server's
// mux, behind its authentication.
type Console struct {
	cfg    Config
	static http.Handler
	mux    *http.ServeMux // the routes without authentication, for ServeHTTP
	now    func() time.Time
}

// New returns the console for cfg.
func New(cfg *Config) (*Console, error) {
	if cfg == nil || cfg.Kernel == nil || cfg.Feed == nil || cfg.Auth == nil {
		return nil, errors.New("console: a kernel, a feed and the server's auth are required")
	}
	c := &Console{cfg: *cfg, now: time.Now}
	if c.cfg.Role == "" {
		c.cfg.Role = "admin"
	}
	sub, _ := fs.Sub(uiFiles, "ui")
	c.static = http.StripPrefix("/ui/static/", http.FileServer(http.FS(sub)))
	c.mux = http.NewServeMux()
	for _, rt := range c.Routes() {
		c.mux.Handle(rt.Pattern, rt.Handler)
	}
	return c, nil
}

// ServeHTTP serves the console's routes ([Console.Routes]) without the
// server's authentication: every page is the login page and every API
// call is refused. Mount the routes on a server instead.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.mux.ServeHTTP(w, r) }

// Routes are the console's routes, to mount on the server's mux: the
// pages (the login form for a request without a session), the static
// files, login and logout, and the JSON API, which takes only the
// session cookie, and whose POSTs need the CSRF header.
func (c *Console) Routes() []server.Route {
	page := server.RouteAuth{Accept: server.Cookie, Optional: true, Refuse: refusePage}
	api := server.RouteAuth{Accept: server.Cookie, Refuse: refuseJSON}
	route := func(pattern string, ra server.RouteAuth, h http.HandlerFunc) server.Route {
		return server.Route{Pattern: pattern, Handler: secured(h), RouteAuth: ra}
	}
	return []server.Route{
		route("GET /ui/{$}", page, c.index),
		route("GET /ui/static/", page, c.static.ServeHTTP),
		route("POST /ui/login", page, c.login),
		route("POST /ui/logout", page, c.logout),
		route("GET /ui/api/tools", api, signedIn(func(w http.ResponseWriter, r *http.Request, _ kernel.Principal) { c.tools(w) })),
		route("POST /ui/api/call", api, signedIn(c.call)),
		route("GET /ui/api/feed", api, signedIn(func(w http.ResponseWriter, r *http.Request, _ kernel.Principal) { c.feed(w, r) })),
		route("GET /ui/api/audit", api, signedIn(func(w http.ResponseWriter, r *http.Request, _ kernel.Principal) { c.audit(w, r) })),
		route("POST /ui/api/verify", api, signedIn(func(w http.ResponseWriter, r *http.Request, _ kernel.Principal) { c.verify(w, r) })),
		route("GET /ui/api/providers", api, signedIn(func(w http.ResponseWriter, r *http.Request, _ kernel.Principal) {
			writeJSON(w, c.cfg.Feed.providers())
		})),
		route("GET /ui/api/spend", api, signedIn(func(w http.ResponseWriter, r *http.Request, _ kernel.Principal) { c.spend(w, r) })),
		route("GET /ui/api/me", api, signedIn(func(w http.ResponseWriter, r *http.Request, p kernel.Principal) {
			writeJSON(w, map[string]any{"principal": p.ID, "roles": p.Roles, "audit": c.cfg.Audit != nil})
		})),
	}
}

// secured sets the console's security headers on every answer.
func secured(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin") // "no-referrer" makes a form POST's Origin "null"
		h.Set("Cache-Control", "no-store")
		next(w, r)
	})
}

// signedIn runs an API handler for the session's principal; a POST
// needs the CSRF header.
func signedIn(next func(http.ResponseWriter, *http.Request, kernel.Principal)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := server.PrincipalFrom(r.Context())
		if !ok { // the server refuses these; this is defence in depth
			jsonError(w, http.StatusUnauthorized, "log in first")
			return
		}
		if r.Method == http.MethodPost && r.Header.Get(csrfHeader) != "1" {
			jsonError(w, http.StatusForbidden, "missing "+csrfHeader+" header")
			return
		}
		next(w, r, p)
	}
}

// index is the console, or the login form without a session.
func (c *Console) index(w http.ResponseWriter, r *http.Request) {
	if _, ok := server.PrincipalFrom(r.Context()); !ok {
		loginPage(w, http.StatusOK, "")
		return
	}
	b, _ := uiFiles.ReadFile("ui/index.html")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b)
}

// refuseJSON is the API's refusal: a JSON error.
func refuseJSON(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	jsonError(w, status, msg)
}

// refusePage is a page's refusal: the login form, saying why.
func refusePage(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	if status == http.StatusTooManyRequests {
		msg = "Too many failed logins from this address; wait a few seconds and try again."
	}
	loginPage(w, status, msg)
}

// errNoRole is a login whose principal lacks the console's role.
var errNoRole = errors.New("console: no console role")

func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err != nil || u.Host != r.Host {
			http.Error(w, "cross-origin login refused", http.StatusForbidden)
			return
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	tok := r.PostFormValue("token")
	var who string
	_, err := c.cfg.Auth.Login(w, r, tok, func(p kernel.Principal) error {
		if c.cfg.Directory != nil {
			if d, ok := c.cfg.Directory(p.ID); ok {
				p = d
			}
		}
		if !p.HasRole(c.cfg.Role) {
			who = p.ID
			return errNoRole
		}
		return nil
	})
	switch {
	case err == nil:
		http.Redirect(w, r, "/ui/", http.StatusSeeOther)
	case errors.Is(err, server.ErrThrottled):
		loginPage(w, http.StatusTooManyRequests, "Too many failed logins from this address; wait a few seconds and try again.")
	case errors.Is(err, errNoRole):
		// The principal is named: whoever typed the secret holds it.
		loginPage(w, http.StatusForbidden, "The principal of that token or key, "+who+", does not have the console role ("+c.cfg.Role+").")
	case errors.Is(err, server.ErrKeyRevoked):
		loginPage(w, http.StatusUnauthorized, "That key was revoked.")
	case errors.Is(err, server.ErrKeyExpired):
		loginPage(w, http.StatusUnauthorized, "That key has expired.")
	case errors.Is(err, server.ErrKeyStoreDown):
		loginPage(w, http.StatusServiceUnavailable, "The key store cannot be reached; try again later.")
	case errors.Is(err, server.ErrTooManySessions):
		loginPage(w, http.StatusServiceUnavailable, "Too many console sessions are open; try again later.")
	default:
		loginPage(w, http.StatusUnauthorized, "Unknown token or key.")
	}
}

// loginPage writes the login form with msg, if any, above it.
func loginPage(w http.ResponseWriter, status int, msg string) {
	b, _ := uiFiles.ReadFile("ui/login.html")
	if msg != "" {
		b = bytes.Replace(b, []byte("<!--error-->"), []byte(`<p id="login-error" class="error" role="alert">`+html.EscapeString(msg)+`</p>`), 1)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	c.cfg.Auth.Logout(w, r)
	http.Redirect(w, r, "/ui/", http.StatusSeeOther)
}

type toolInfo struct {
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"`
	Source      string            `json:"source"`
	Description string            `json:"description"`
	Safety      kernel.Safety     `json:"safety"`
	Sensitivity string            `json:"sensitivity"`
	Schema      json.RawMessage   `json:"schema"`
	Annotations *tool.Annotations `json:"annotations,omitempty"`
}

func (c *Console) tools(w http.ResponseWriter) {
	var out []toolInfo
	for _, cp := range c.cfg.Kernel.Registry().List() {
		d := cp.Definition
		title := d.Title
		if title == "" && d.Annotations != nil {
			title = d.Annotations.Title
		}
		out = append(out, toolInfo{Name: d.Name, Title: title, Source: c.cfg.SourceOf[d.Name], Description: d.Description, Safety: cp.Safety,
			Sensitivity: string(cp.Sensitivity), Schema: d.InputSchema, Annotations: d.Annotations})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	writeJSON(w, out)
}

func (c *Console) call(w http.ResponseWriter, r *http.Request, p kernel.Principal) {
	var in struct {
		Tool          string          `json:"tool"`
		Arguments     json.RawMessage `json:"arguments"`
		Justification string          `json:"justification"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxCallBytes)).Decode(&in); err != nil || in.Tool == "" {
		jsonError(w, http.StatusBadRequest, "want {\"tool\": NAME, \"arguments\": {…}}")
		return
	}
	if len(in.Arguments) == 0 {
		in.Arguments = json.RawMessage(`{}`)
	}
	var raw [9]byte
	rand.Read(raw[:])
	out, err := c.cfg.Kernel.Call(r.Context(), &kernel.Request{Principal: p, Justification: in.Justification,
		Call: tool.Call{ID: "console_" + hex.EncodeToString(raw[:]), Name: in.Tool, Arguments: in.Arguments}})
	if err != nil {
		if errors.Is(err, kernel.ErrOutcomeNotRecorded) {
			// The tool ran: saying the kernel cannot run calls would
			// invite a retry of its side effects.
			jsonError(w, http.StatusServiceUnavailable, "the tool ran, but its outcome could not be recorded in the audit log, so its result is withheld; do not assume it failed: "+err.Error())
			return
		}
		jsonError(w, http.StatusServiceUnavailable, "the kernel cannot run calls: "+err.Error())
		return
	}
	writeJSON(w, map[string]any{"status": out.Status, "decision": out.Decision, "result": out.Result.Text(), "is_error": out.Result.IsError})
}

func (c *Console) feed(w http.ResponseWriter, r *http.Request) {
	past, ch, ok := c.cfg.Feed.subscribe()
	if !ok {
		jsonError(w, http.StatusServiceUnavailable, "too many live feeds open")
		return
	}
	defer c.cfg.Feed.unsubscribe(ch)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range past {
		b, _ := json.Marshal(e)
		w.Write([]byte("data: "))
		w.Write(b)
		w.Write([]byte("\n\n"))
	}
	rc.Flush()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case b, open := <-ch:
			if !open {
				return
			}
			rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := w.Write(append(append([]byte("data: "), b...), '\n', '\n')); err != nil {
				return
			}
			rc.Flush()
		case <-ping.C:
			rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
			rc.Flush()
		}
	}
}

type auditRow struct {
	Seq       int64     `json:"seq"`
	Time      time.Time `json:"time"`
	Principal string    `json:"principal"`
	Tool      string    `json:"tool"`
	// Kind, CallID and Parent say what the record is and join it to its
	// span: gen_ai.tool.call.id (toolgate.request_id for a model
	// request) and toolgate.parent_id.
	Kind   kernel.RecordKind `json:"kind,omitempty"`
	CallID string            `json:"call_id,omitempty"`
	Parent string            `json:"parent,omitempty"`
	Status kernel.Status     `json:"status"`
	Effect kernel.Effect     `json:"effect"`
	Rule   string            `json:"rule"`
	Reason string            `json:"reason"`
	Args   string            `json:"args"`
	Result string            `json:"result"`
	Hash   string            `json:"hash"`
	Prev   string            `json:"prev"`
}

func (c *Console) audit(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Audit == nil {
		jsonError(w, http.StatusNotFound, "this server keeps no audit log")
		return
	}
	q := r.URL.Query()
	f := audit.Filter{Principal: q.Get("principal"), Tool: q.Get("tool"), Limit: maxAuditScan}
	var until time.Time
	for key, t := range map[string]*time.Time{"since": &f.Since, "until": &until} {
		if v := q.Get(key); v != "" {
			parsed, err := time.Parse(time.RFC3339, v)
			if err != nil {
				if parsed, err = time.ParseInLocation("2006-01-02T15:04", v, time.Local); err != nil {
					jsonError(w, http.StatusBadRequest, key+" is not a time (RFC 3339)")
					return
				}
			}
			*t = parsed
		}
	}
	outcome := q.Get("outcome")
	var rows []auditRow
	err := c.cfg.Audit.List(r.Context(), f, func(rec *kernel.AuditRecord) error {
		if outcome != "" && string(rec.Status) != outcome && string(rec.Effect) != outcome {
			return nil
		}
		if !until.IsZero() && rec.Time.After(until) {
			return nil
		}
		rows = append(rows, auditRow{Seq: rec.Seq, Time: rec.Time, Principal: rec.Principal, Tool: rec.Tool, Kind: rec.Kind, CallID: rec.CallID, Parent: rec.Parent,
			Status: rec.Status, Effect: rec.Effect,
			Rule: rec.Rule, Reason: rec.Reason, Args: string(rec.Args), Result: rec.Result, Hash: hex.EncodeToString(rec.Hash[:]), Prev: hex.EncodeToString(rec.Prev[:])})
		return nil
	})
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "the audit log could not be read: "+err.Error())
		return
	}
	if len(rows) > maxAuditResults {
		rows = rows[len(rows)-maxAuditResults:]
	}
	slices.Reverse(rows) // newest first
	writeJSON(w, rows)
}

func (c *Console) verify(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Audit == nil {
		jsonError(w, http.StatusNotFound, "this server keeps no audit log")
		return
	}
	rep, err := kernel.VerifyChain(r.Context(), c.cfg.Audit, c.cfg.AuditKey)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "the audit log could not be read: "+err.Error())
		return
	}
	writeJSON(w, map[string]any{"ok": rep.OK(), "records": rep.Records, "problems": rep.Problems, "summary": rep.String()})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[i]
}
