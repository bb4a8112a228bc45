// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
)

// APIGemini is Google's Generative Language API (generateContent and
// streamGenerateContent), as a backend and as a front door.
const APIGemini API = "gemini"

// BackendGemini is the Generative Language API, or a server that speaks it.
const BackendGemini Backend = "gemini"

// Gemini's function calls may come without an id, and a call that opens
// a Gemini 3 turn carries a thoughtSignature that must be replayed with
// it. The gateway is stateless, so both travel in the call id the client
// sees, which every client sends back with the call's result:
//
//	gcall_1f0c…            an id the gateway made for a call without one
//	ID__ts_bSIGNATURE      a call and its signature (base64url, "b"), or
//	ID__ts_rRAW            a signature that was not base64 ("r")
//
// To a Gemini backend the made-up id is left out and the signature goes
// back as the part's thoughtSignature; to any other backend the
// signature is cut off (it means nothing there) and the id kept.
const (
	geminiGenPrefix = "gcall_"
	geminiSigSep    = "__ts_"
)

// newGeminiCallID makes an id for a call that came without one.
func newGeminiCallID() string {
	var b [12]byte
	rand.Read(b[:])
	return geminiGenPrefix + hex.EncodeToString(b[:])
}

// joinCallID is the id the client sees for call id with signature sig.
func joinCallID(id, sig string) string {
	if sig == "" {
		return id
	}
	if b, err := base64.StdEncoding.DecodeString(sig); err == nil && base64.StdEncoding.EncodeToString(b) == sig {
		return id + geminiSigSep + "b" + base64.RawURLEncoding.EncodeToString(b)
	}
	return id + geminiSigSep + "r" + base64.RawURLEncoding.EncodeToString([]byte(sig))
}

// splitCallID undoes [joinCallID]: the call id and its signature. An id
// whose signature part cannot be read keeps it as part of the id.
func splitCallID(id string) (base, sig string) {
	i := strings.Index(id, geminiSigSep)
	if i < 0 {
		return id, ""
	}
	enc := id[i+len(geminiSigSep):]
	if enc == "" {
		return id, ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc[1:])
	if err != nil {
		return id, ""
	}
	switch enc[0] {
	case 'b':
		return id[:i], base64.StdEncoding.EncodeToString(raw)
	case 'r':
		return id[:i], string(raw)
	}
	return id, ""
}

// generatedCallID reports an id the gateway made up for a Gemini call.
func generatedCallID(id string) bool { return strings.HasPrefix(id, geminiGenPrefix) }

// withoutSignatures returns r with the Gemini signatures cut off its call
// ids, for a backend other than Gemini; r itself when none has one.
func withoutSignatures(r *Request) *Request {
	found := false
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			if (p.Kind == PartCall || p.Kind == PartResult) && strings.Contains(p.CallID, geminiSigSep) {
				found = true
			}
		}
	}
	if !found {
		return r
	}
	c := *r
	c.Messages = make([]Message, len(r.Messages))
	for i, m := range r.Messages {
		parts := make([]Part, len(m.Parts))
		copy(parts, m.Parts)
		for j := range parts {
			if k := parts[j].Kind; k == PartCall || k == PartResult {
				parts[j].CallID, _ = splitCallID(parts[j].CallID)
			}
		}
		c.Messages[i] = Message{Role: m.Role, Parts: parts}
	}
	return &c
}

// geminiEndpoint is the streaming URL of model under base, the API root
// (https://generativelanguage.googleapis.com, with or without /v1beta).
func geminiEndpoint(base, model string) string {
	if !strings.HasSuffix(base, "/v1beta") && !strings.HasSuffix(base, "/v1") && !strings.HasSuffix(base, "/v1alpha") {
		base += "/v1beta"
	}
	return base + "/models/" + url.PathEscape(strings.TrimPrefix(model, "models/")) + ":streamGenerateContent?alt=sse"
}
