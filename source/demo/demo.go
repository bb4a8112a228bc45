// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Package demo is the task tracker that `toolgate serve` runs when it has
// no configuration: a small REST API served in-process, described by an
// embedded OpenAPI 3 spec, and exposed as tools through the openapi
// connector by source.NewDemo.
//
// # Operations
//
// listTasks and getTask read; createTask and updateTask write; deleteTask
// cannot be undone. Under the default policy reads are open, writes need a
// justification and deletes need the admin token.
//
// # Example
//
//	hc := &http.Client{Transport: demo.New().Transport()}
//	resp, err := hc.Get("http://demo/v1/tasks/2")
package demo

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Spec is the tracker's OpenAPI 3 description.
//
//go:embed openapi.yaml
var spec []byte

// Spec returns a copy of the tracker's OpenAPI 3 description.
func Spec() []byte { return append([]byte(nil), spec...) }

// SpecLocation names the embedded spec in messages and configs.
const SpecLocation = "builtin:demo"

// Task is one task of the tracker.
type Task struct {
	ID          int    `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Status      string `json:"status"`
	Assignee    string `json:"assignee,omitempty"`
}

// Tracker is the task tracker: an http.Handler over tasks in memory. It is
// safe for concurrent use.
type Tracker struct {
	mu    sync.Mutex
	tasks map[int]*Task
	next  int
}

// New returns a tracker holding three example tasks.
func New() *Tracker {
	t := &Tracker{tasks: map[int]*Task{}, next: 1}
	for _, s := range []Task{
		{Title: "Write the release notes", Status: "doing", Assignee: "ada"},
		{Title: "Rotate the staging API keys", Status: "todo"},
		{Title: "Archive last quarter's reports", Description: "Old PDFs, nothing newer than March.", Status: "done", Assignee: "grace"},
	} {
		s.ID = t.next
		t.tasks[s.ID] = &s
		t.next++
	}
	return t
}

var statuses = map[string]bool{"todo": true, "doing": true, "done": true}

// ServeHTTP implements the API the spec describes, under /v1.
func (t *Tracker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, "/v1/tasks")
	if !ok {
		writeError(w, http.StatusNotFound, "no such path")
		return
	}
	if path == "" || path == "/" {
		switch r.Method {
		case http.MethodGet:
			t.list(w, r)
		case http.MethodPost:
			t.create(w, r)
		default:
			writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		}
		return
	}
	id, err := strconv.Atoi(strings.TrimPrefix(path, "/"))
	if err != nil || id < 1 {
		writeError(w, http.StatusNotFound, "no such task")
		return
	}
	switch r.Method {
	case http.MethodGet:
		t.get(w, id)
	case http.MethodPatch:
		t.update(w, r, id)
	case http.MethodDelete:
		t.delete(w, id)
	default:
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
	}
}

func (t *Tracker) list(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	if status != "" && !statuses[status] {
		writeError(w, http.StatusBadRequest, "status must be todo, doing or done")
		return
	}
	limit := 20
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			writeError(w, http.StatusBadRequest, "limit must be between 1 and 100")
			return
		}
		limit = n
	}
	t.mu.Lock()
	out := make([]Task, 0, len(t.tasks))
	for _, task := range t.tasks {
		if status == "" || task.Status == status {
			out = append(out, *task)
		}
	}
	t.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) > limit {
		out = out[:limit]
	}
	writeJSON(w, http.StatusOK, map[string]any{"tasks": out})
}

func (t *Tracker) get(w http.ResponseWriter, id int) {
	t.mu.Lock()
	task, ok := t.tasks[id]
	var c Task
	if ok {
		c = *task
	}
	t.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no task %d", id))
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// fields is a create or update body; pointers tell absent from empty.
type fields struct {
	Title       *string `json:"title"`
	Description *string `json:"description"`
	Status      *string `json:"status"`
	Assignee    *string `json:"assignee"`
}

func readFields(w http.ResponseWriter, r *http.Request) (*fields, bool) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	var f fields
	if err := dec.Decode(&f); err != nil {
		writeError(w, http.StatusBadRequest, "body must be a JSON object with title, description, status or assignee")
		return nil, false
	}
	switch {
	case f.Title != nil && (len(*f.Title) == 0 || len(*f.Title) > 200):
		writeError(w, http.StatusBadRequest, "title must be 1 to 200 characters")
	case f.Description != nil && len(*f.Description) > 2000:
		writeError(w, http.StatusBadRequest, "description must be at most 2000 characters")
	case f.Assignee != nil && len(*f.Assignee) > 100:
		writeError(w, http.StatusBadRequest, "assignee must be at most 100 characters")
	case f.Status != nil && !statuses[*f.Status]:
		writeError(w, http.StatusBadRequest, "status must be todo, doing or done")
	default:
		return &f, true
	}
	return nil, false
}

func (f *fields) apply(task *Task) {
	if f.Title != nil {
		task.Title = *f.Title
	}
	if f.Description != nil {
		task.Description = *f.Description
	}
	if f.Status != nil {
		task.Status = *f.Status
	}
	if f.Assignee != nil {
		task.Assignee = *f.Assignee
	}
}

func (t *Tracker) create(w http.ResponseWriter, r *http.Request) {
	f, ok := readFields(w, r)
	if !ok {
		return
	}
	if f.Title == nil {
		writeError(w, http.StatusBadRequest, "title is required")
		return
	}
	if f.Status != nil {
		writeError(w, http.StatusBadRequest, "a new task starts as todo; set its status with updateTask")
		return
	}
	task := &Task{Status: "todo"}
	f.apply(task)
	t.mu.Lock()
	task.ID = t.next
	t.next++
	t.tasks[task.ID] = task
	c := *task
	t.mu.Unlock()
	writeJSON(w, http.StatusCreated, c)
}

func (t *Tracker) update(w http.ResponseWriter, r *http.Request, id int) {
	f, ok := readFields(w, r)
	if !ok {
		return
	}
	t.mu.Lock()
	task, ok := t.tasks[id]
	var c Task
	if ok {
		f.apply(task)
		c = *task
	}
	t.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no task %d", id))
		return
	}
	writeJSON(w, http.StatusOK, c)
}

func (t *Tracker) delete(w http.ResponseWriter, id int) {
	t.mu.Lock()
	_, ok := t.tasks[id]
	delete(t.tasks, id)
	t.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no task %d", id))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// Transport returns a RoundTripper that serves every request with the
// tracker in-process, whatever its host: no socket is opened.
func (t *Tracker) Transport() http.RoundTripper { return inProcess{t} }

type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}
