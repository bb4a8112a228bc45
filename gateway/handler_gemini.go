// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// geminiRoutes serves the Gemini front door, under /v1beta (Google's
// SDKs' default) and /v1 alike:
//
//	POST /v1beta/models/{model}:generateContent
//	POST /v1beta/models/{model}:streamGenerateContent   (?alt=sse: SSE; else a JSON array)
//	POST /v1beta/models/{model}:countTokens              (an estimate)
//	GET  /v1beta/models, GET /v1beta/models/{model}
//
// GET /v1/models answers in Gemini's shape when the request carries a
// Google key (see [googleKey]), in OpenAI's otherwise.
func (h *Handler) geminiRoutes() {
	for _, v := range []string{"/v1beta", "/v1"} {
		h.mux.HandleFunc("POST "+v+"/models/{action...}", h.geminiAction)
		h.mux.HandleFunc("GET "+v+"/models/{name...}", h.getGeminiModel)
	}
	h.mux.HandleFunc("GET /v1beta/models", h.listGeminiModels)
}

// googleKey reports a request made the way Google's SDKs make it: with
// x-goog-api-key, or the key query parameter (which the server moves
// into that header, out of the URL).
func googleKey(r *http.Request) bool {
	return r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key")
}

// geminiPath reports a request for the Gemini front door.
func geminiPath(r *http.Request) bool {
	p := r.URL.Path
	return strings.HasPrefix(p, "/v1beta/") || p == "/v1beta" ||
		(strings.HasPrefix(p, "/v1/models/") && strings.Contains(p, ":")) ||
		(strings.HasPrefix(p, "/v1/models") && googleKey(r))
}

func (h *Handler) geminiAction(w http.ResponseWriter, r *http.Request) {
	action := r.PathValue("action")
	i := strings.LastIndexByte(action, ':')
	if i <= 0 {
		writeError(w, APIGemini, http.StatusNotFound, "", "the Gemini routes are models/{model}:generateContent, :streamGenerateContent and :countTokens")
		return
	}
	model, method := action[:i], action[i+1:]
	switch method {
	case "generateContent":
		h.serveGemini(w, r, model, false)
	case "streamGenerateContent":
		h.serveGemini(w, r, model, true)
	case "countTokens":
		h.countGeminiTokens(w, r, model)
	default:
		writeError(w, APIGemini, http.StatusNotFound, "", fmt.Sprintf("method %q is not served here", clip(method)))
	}
}

// serveGemini is [Handler.serve] for the Gemini front door, whose model
// and streaming are in the URL rather than the body.
func (h *Handler) serveGemini(w http.ResponseWriter, r *http.Request, model string, stream bool) {
	front := APIGemini
	s := &served{front: front, start: h.cfg.Now()}
	defer h.log(s)
	r, body, ok := h.begin(w, r, s)
	if !ok {
		return
	}
	req, err := decodeGemini(model, body, -1)
	if err != nil {
		s.err = err
		h.refuse(w, front, err, s)
		return
	}
	if stream {
		// Without alt=sse Gemini streams a JSON array, which no client
		// can read before it ends: the gateway writes it whole.
		req.Stream = r.URL.Query().Get("alt") == "sse"
		req.gemini.array = !req.Stream
	}
	s.model = req.Model
	prov, ok := h.models[req.Model]
	s.known = ok
	if !ok {
		s.status = http.StatusNotFound
		writeError(w, front, s.status, "", fmt.Sprintf("model %q is not served here", clip(req.Model)))
		return
	}
	release, ok := h.admit(w, r, front, req, h.providers[prov], len(body), s)
	if !ok {
		return
	}
	defer release()
	if h.cfg.Audit != nil {
		s.reqID = newRequestID()
	}
	h.answer(w, r, front, req, h.providers[prov], s)
}

// countGeminiTokens answers countTokens with an estimate, four bytes of
// the request a token: clients use it to decide when to compress a long
// conversation, and no backend kind can count for another's tokenizer.
func (h *Handler) countGeminiTokens(w http.ResponseWriter, r *http.Request, model string) {
	if _, ok := h.models[model]; !ok {
		writeError(w, APIGemini, http.StatusNotFound, "", fmt.Sprintf("model %q is not served here", clip(model)))
		return
	}
	s := &served{front: APIGemini}
	body, ok := h.readBody(w, r, APIGemini, s)
	if !ok {
		return
	}
	if err := checkBody(body, -1); err != nil {
		h.refuse(w, APIGemini, err, s)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"totalTokens":` + strconv.Itoa((len(body)+3)/4) + `}`))
}

func appendGeminiModel(b []byte, name string) []byte {
	b = jsonStr(append(b, `{"name":`...), "models/"+name)
	b = jsonStr(append(b, `,"baseModelId":`...), name)
	b = append(b, `,"version":"toolgate","displayName":`...)
	b = jsonStr(b, name)
	return append(b, `,"supportedGenerationMethods":["generateContent","streamGenerateContent","countTokens"]}`...)
}

func (h *Handler) listGeminiModels(w http.ResponseWriter, r *http.Request) {
	b := []byte(`{"models":[`)
	for i, name := range h.public {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendGeminiModel(b, name)
	}
	b = append(b, "]}"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// getGeminiModel answers GET …/models/{name}: in Gemini's shape on
// /v1beta or with a Google key, else as OpenAI's model object.
func (h *Handler) getGeminiModel(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.PathValue("name"), "models/")
	gem := strings.HasPrefix(r.URL.Path, "/v1beta/") || googleKey(r)
	front := APIChat
	if gem {
		front = APIGemini
	}
	if _, ok := h.models[name]; !ok {
		writeError(w, front, http.StatusNotFound, errorType(front, http.StatusNotFound), fmt.Sprintf("model %q is not served here", clip(name)))
		return
	}
	var b []byte
	if gem {
		b = appendGeminiModel(nil, name)
	} else {
		b = jsonStr([]byte(`{"id":`), name)
		b = append(b, `,"object":"model","created":0,"owned_by":"toolgate"}`...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
