// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/kernel"
	"github.com/toolgate/toolgate/kernel/audit"
	"github.com/toolgate/toolgate/tool"
)

// TestCanaryProperty is issue 14's property: for random documents with
// canary secrets planted at random places — member names, values, JSON
// nested in strings at several levels, text split across content parts,
// the tool name, the call id, the principal, the justification, the
// arguments, an invalid-arguments error, an executor's error and a tool
// error — no canary appears in any byte the kernel returns, nor anywhere
// in the bytes of its SQLite audit database (the .db and -wal files).
func TestCanaryProperty(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 300
	}
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "audit.db")
	st, err := audit.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log, err := kernel.NewAuditLog(ctx, &kernel.AuditConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}

	g := &canaryGen{rng: rand.New(rand.NewPCG(14, 2026))}
	// A registered credential, masked by value wherever it turns up.
	credential := g.body(24, alnum)
	var cur func(ctx context.Context, call tool.Call) (tool.Result, error)
	reg := kernel.NewRegistry()
	for _, c := range []kernel.Capability{{
		Definition: tool.Definition{Name: "gen", Description: "returns the document under test"},
		Safety:     kernel.SafetyRead,
		Secrets:    []string{credential},
	}, {
		Definition: tool.Definition{Name: "gen_schema", Description: "returns the document under test, for valid arguments",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`)},
		Safety: kernel.SafetyRead,
	}, {
		Definition:    tool.Definition{Name: "gen_pii", Description: "returns the document under test, projected"},
		Safety:        kernel.SafetyRead,
		Sensitivity:   kernel.SensitivityPII,
		AllowedFields: []string{"*", "*.*", "items.*.note"},
	}} {
		c.Executor = kernel.ExecutorFunc(func(ctx context.Context, call tool.Call) (tool.Result, error) { return cur(ctx, call) })
		if err := reg.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	k, err := kernel.New(&kernel.Config{
		Registry: reg,
		Audit:    log,
		Limits:   kernel.RateLimits{Window: -1},
		Firewall: kernel.NewFirewall(&kernel.FirewallConfig{MaxRows: 6, MaxDepth: 6, MaxBytes: 16 << 10}),
	})
	if err != nil {
		t.Fatal(err)
	}
	g.credential = credential

	var masks, outBytes int
	var canaries []string
	for i := range n {
		g.canaries = g.canaries[:0]
		req := kernel.Request{
			Principal: kernel.Principal{ID: "p" + strconv.Itoa(i%7), Roles: []string{"reader"}},
			Call:      tool.Call{ID: "call_" + strconv.Itoa(i), Name: "gen", Arguments: json.RawMessage(`{}`)},
			Mode:      []kernel.Mode{kernel.ModeDefault, kernel.ModeDefault, kernel.ModeSummary, kernel.ModeTable, kernel.ModeRaw}[g.rng.IntN(5)],
		}
		if req.Mode == kernel.ModeRaw && g.rng.IntN(2) == 0 {
			req.Principal.Roles = append(req.Principal.Roles, "admin")
		}
		if g.rng.IntN(4) == 0 {
			req.Call.Name = "gen_pii"
		}
		res := g.result()
		var execErr error
		switch g.rng.IntN(12) {
		case 0: // the executor fails with a secret in its error
			execErr = errors.New("upstream refused: " + g.snippet())
		case 1: // the tool fails, saying too much
			res = tool.ErrorResult("", "request failed: "+g.snippet()+"\n"+g.snippet())
		case 2: // invalid arguments: a duplicate name the error quotes
			key := string(strictjson.AppendQuote(nil, g.snippet()))
			req.Call.Arguments = json.RawMessage(`{` + key + `:1,` + key + `:2}`)
		case 3: // arguments that are not an object, quoting a secret
			req.Call.Arguments = strictjson.AppendQuote(nil, g.snippet())
		case 4: // arguments and a justification the audit log keeps
			req.Call.Arguments = json.RawMessage(`{"q":` + string(strictjson.AppendQuote(nil, g.snippet())) + `,` +
				string(strictjson.AppendQuote(nil, g.snippet())) + `:"x","_justification":` + string(strictjson.AppendQuote(nil, g.snippet())) + `}`)
		case 5: // a secret as the tool name
			req.Call.Name = g.snippet()
		case 6: // a secret as the call id
			req.Call.ID = g.snippet()
		case 7: // a secret as the principal
			req.Principal.ID = g.snippet()
		case 8:
			req.Justification = g.snippet()
		case 9: // arguments the schema refuses, naming the member
			req.Call.Name = "gen_schema"
			req.Call.Arguments = json.RawMessage(`{` + string(strictjson.AppendQuote(nil, g.snippet())) + `:1,"q":5}`)
		}
		cur = func(context.Context, tool.Call) (tool.Result, error) { return res, execErr }
		o, err := k.Call(ctx, &req)
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range g.canaries {
			if bytes.Contains(b, []byte(c)) {
				in, _ := json.Marshal(res)
				t.Fatalf("document %d: canary %q came back:\nrequest: %+v\ntool result: %s\noutcome: %s", i, c, req, in, b)
			}
		}
		masks += bytes.Count(b, []byte("[REDACTED"))
		outBytes += len(b)
		canaries = append(canaries, g.canaries...)
	}
	if err := log.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// The audit database as the writer left it (WAL included), then after
	// closing, when SQLite has checkpointed the WAL into the file.
	var files [][]byte
	read := func() {
		for _, p := range []string{dbPath, dbPath + "-wal"} {
			b, err := os.ReadFile(p)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
		}
	}
	read()
	var rows int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM audit WHERE kind != 'outcome'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != n {
		t.Fatalf("%d audit rows, want %d", rows, n)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	read()
	total := 0
	for _, f := range files {
		total += len(f)
	}
	if total < n*100 {
		t.Fatalf("the audit files hold %d bytes for %d records: not the database", total, n)
	}
	// Every canary is at least canaryMin bytes: look each window of that
	// size up, rather than search the files once per canary.
	byPrefix := make(map[string][]string, len(canaries))
	for _, c := range canaries {
		byPrefix[c[:canaryMin]] = append(byPrefix[c[:canaryMin]], c)
	}
	for _, f := range files {
		for i := 0; i+canaryMin <= len(f); i++ {
			for _, c := range byPrefix[string(f[i:i+canaryMin])] {
				if bytes.HasPrefix(f[i:], []byte(c)) {
					t.Fatalf("canary %q is in the audit database", c)
				}
			}
		}
	}
	// The property is only worth something if the canaries were there to
	// be found: the masks must show up.
	if masks < n {
		t.Fatalf("%d masks in the outcomes of %d documents: the generator planted little", masks, n)
	}
	t.Logf("%d documents, %d canaries, %d masks in %d bytes of outcome, %d bytes of database", n, len(canaries), masks, outBytes, total)
}

// canaryMin is the length of the shortest canary.
const canaryMin = 14

const (
	alnum   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	upperD  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64     = alnum + "+/"
	b64url  = alnum + "-_"
	hexchar = "0123456789abcdef"
)

// canaryGen makes random documents and secrets. Every secret's random
// part is recorded in canaries: none may come out of the kernel.
type canaryGen struct {
	rng        *rand.Rand
	credential string
	canaries   []string
}

func (g *canaryGen) body(n int, charset string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = charset[g.rng.IntN(len(charset))]
	}
	// The detectors want a digit in some keys; every body gets one.
	b[g.rng.IntN(n)] = "0123456789"[g.rng.IntN(10)]
	return string(b)
}

// secret returns a secret in one of the formats the redactor knows, and
// records its random part (long enough to be unique) as a canary.
func (g *canaryGen) secret() (text, canary string) {
	switch g.rng.IntN(12) {
	case 0:
		c := g.body(32, b64url)
		return "sk-proj-" + c, c
	case 1:
		c := g.body(36, alnum)
		return "ghp_" + c, c
	case 2:
		c := g.body(16, upperD)
		return "AKIA" + c, c
	case 3:
		c := g.body(24, alnum)
		return "xoxb-1234-" + c, c
	case 4:
		c := g.body(30, b64url)
		return "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx" + c + ".sig" + g.body(10, b64url), c
	case 5:
		c := g.body(48, b64)
		return "-----BEGIN " + "PRIVATE KEY-----\nMIIE" + c + "\n" + g.body(40, b64) + "\n-----END PRIVATE KEY-----", c
	case 6:
		c := g.body(14, alnum)
		return "postgres://app:" + c + "@db.internal:5432/orders", c
	case 7:
		c := g.body(16, alnum)
		return "DB_PASSWORD=" + c, c
	case 8:
		c := g.body(28, b64url)
		return "Authorization: Bearer " + c, c
	case 9:
		c := g.body(20, hexchar)
		return "Set-Cookie: sid=" + c + "; HttpOnly", c
	case 10:
		return g.credential, g.credential
	default:
		c := g.body(20, alnum)
		return "api_key: " + c, c
	}
}

// snippet is a secret in some text around it.
func (g *canaryGen) snippet() string {
	text, c := g.secret()
	g.canaries = append(g.canaries, c)
	switch g.rng.IntN(3) {
	case 0:
		return text
	case 1:
		return "see " + text + " for details"
	}
	return "line one\n" + text + "\nline three"
}

// opaque is a value with no recognisable shape, safe only under a member
// name that says it is a secret.
func (g *canaryGen) opaque() string {
	c := g.body(18, alnum)
	g.canaries = append(g.canaries, c)
	return c
}

var secretNames = []string{"password", "api_key", "clientSecret", "X-Auth-Token", "Authorization", "cookie", "private_key", "session_id"}

// value writes a random JSON value.
func (g *canaryGen) value(b *bytes.Buffer, depth int) {
	// Containers and embedded documents thin out with depth, so that a
	// document stays a few kilobytes.
	k := g.rng.IntN(10)
	if depth > 2 && k < 4 || depth > 1 && k == 4 {
		k += 5
	}
	switch k {
	case 0, 1:
		b.WriteByte('{')
		for i := range g.rng.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			switch g.rng.IntN(6) {
			case 0: // a secret as the name
				b.Write(strictjson.AppendQuote(nil, g.snippet()))
				b.WriteByte(':')
				g.value(b, depth+1)
			case 1: // a secret-named member holding anything
				b.Write(strictjson.AppendQuote(nil, secretNames[g.rng.IntN(len(secretNames))]))
				b.WriteByte(':')
				if g.rng.IntN(2) == 0 {
					b.Write(strictjson.AppendQuote(nil, g.opaque()))
				} else {
					b.WriteString(`{"v":`)
					b.Write(strictjson.AppendQuote(nil, g.opaque()))
					b.WriteString(`,"n":[1,2]}`)
				}
			default:
				fmt.Fprintf(b, `"f%d":`, i)
				g.value(b, depth+1)
			}
		}
		b.WriteByte('}')
	case 2, 3:
		b.WriteByte('[')
		for i := range g.rng.IntN(9) {
			if i > 0 {
				b.WriteByte(',')
			}
			g.value(b, depth+1)
		}
		b.WriteByte(']')
	case 4: // JSON inside a string, one to three levels deep
		var inner bytes.Buffer
		g.object(&inner, depth+1)
		s := inner.String()
		for range 1 + g.rng.IntN(3-depth) {
			s = string(strictjson.AppendQuote(nil, s))
		}
		b.WriteString(s)
	case 5, 6:
		b.Write(strictjson.AppendQuote(nil, g.snippet()))
	case 7:
		b.WriteString(`"plain text"`)
	case 8:
		b.WriteString(strconv.Itoa(g.rng.IntN(100000)))
	default:
		b.WriteString([]string{"true", "false", "null"}[g.rng.IntN(3)])
	}
}

// object writes a random JSON object that always holds a secret.
func (g *canaryGen) object(b *bytes.Buffer, depth int) {
	b.WriteString(`{"items":[`)
	g.value(b, depth+1)
	b.WriteString(`,{"note":`)
	b.Write(strictjson.AppendQuote(nil, g.snippet()))
	b.WriteString(`}],"meta":`)
	g.value(b, depth+1)
	b.WriteByte('}')
}

// result returns a random tool result with secrets planted in it.
func (g *canaryGen) result() tool.Result {
	var res tool.Result
	for range 1 + g.rng.IntN(3) {
		switch g.rng.IntN(5) {
		case 0, 1:
			var b bytes.Buffer
			g.object(&b, 0)
			res.Content = append(res.Content, &tool.JSON{Value: b.Bytes()})
		case 2: // a secret split across two text parts
			text, c := g.secret()
			g.canaries = append(g.canaries, c)
			cut := 1 + g.rng.IntN(len(text)-1)
			if strings.HasPrefix(text, "-----BEGIN") {
				cut = strings.IndexByte(text, '\n') + 1 // BEGIN line, then body and END
			}
			res.Content = append(res.Content, &tool.Text{Text: "first part " + text[:cut]}, &tool.Text{Text: text[cut:] + " second part"})
		case 3: // JSON as text
			var b bytes.Buffer
			g.object(&b, 0)
			res.Content = append(res.Content, &tool.Text{Text: b.String()})
		default:
			res.Content = append(res.Content, &tool.Text{Text: g.snippet()})
		}
	}
	if g.rng.IntN(4) == 0 {
		var b bytes.Buffer
		g.object(&b, 0)
		res.StructuredContent = b.Bytes()
	}
	return res
}
