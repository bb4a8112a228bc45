// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package kernel

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/schema"
	"github.com/toolgate/toolgate/tool"
)

// Safety is what a call can do to the world. Policy is stricter for each
// step up.
type Safety string

// Safety classes.
const (
	// SafetyRead only reads.
	SafetyRead Safety = "READ"
	// SafetyWrite changes state that can be changed back.
	SafetyWrite Safety = "WRITE"
	// SafetyDestructive deletes, sends or pays: it cannot be taken back.
	SafetyDestructive Safety = "DESTRUCTIVE"
)

// Sensitivity is the kind of data a capability's output may hold.
type Sensitivity string

// Sensitivity classes.
const (
	// SensitivityNone: nothing sensitive.
	SensitivityNone Sensitivity = "NONE"
	// SensitivityPII: personal data.
	SensitivityPII Sensitivity = "PII"
	// SensitivityPCI: payment card data.
	SensitivityPCI Sensitivity = "PCI"
	// SensitivitySecrets: credentials and keys.
	SensitivitySecrets Sensitivity = "SECRETS"
)

// ErrInvalidCapability reports a capability the registry cannot accept.
var ErrInvalidCapability = errors.New("kernel: invalid capability")

// Capability is a tool the kernel may run: its definition, how dangerous
// it is, what its output may hold, and the executor that runs it.
type Capability struct {
	// Definition is the tool as models see it. Its InputSchema validates
	// every call's arguments; an empty schema accepts any object.
	Definition tool.Definition
	// Safety is the safety class. If empty it is inferred from the
	// definition: a read-only hint or a read/search action means Read, a
	// destructive hint or a delete/send action Destructive, else Write.
	Safety Safety
	// Sensitivity is the data class of the output. If empty, None.
	Sensitivity Sensitivity
	// AllowedFields lists the output fields a principal without
	// "pii_reader" may see when Sensitivity is PII or PCI. A field is a
	// dotted path ("customer.name"); "*" matches any member name; arrays
	// are transparent. Empty means nothing structured is shown.
	AllowedFields []string
	// Executor runs the call.
	Executor Executor
	// Timeout bounds one call. If zero, the kernel's default; negative
	// means none.
	Timeout time.Duration
	// PassGrant hands the executor the call's grant token through
	// [GrantFromContext], for executors that forward it to a service
	// sharing the grant key.
	PassGrant bool
	// Secrets are credentials the executor holds (an API key, a token in
	// a command's environment). A kernel masks each of them by value in
	// everything that leaves it, whichever call echoes them: results,
	// notes, error messages and every audit column. An executor may also
	// declare its own with [SecretHolder]; both are masked.
	Secrets []string `json:"-"`
}

// SecretHolder is implemented by executors that hold credentials of their
// own, such as [Command] with a token in its environment. When a
// capability is added to a [Registry], the values Secrets returns join
// [Capability.Secrets]: every kernel over the registry masks them by value
// in all it returns and logs. Secrets is called once, at registration; a
// value shorter than four bytes is not masked (it would destroy ordinary
// text).
type SecretHolder interface {
	Secrets() []string
}

// InferSafety returns the safety class of d from its annotations and
// capability metadata: see [Capability.Safety].
func InferSafety(d *tool.Definition) Safety {
	if a := d.Annotations; a != nil {
		if a.DestructiveHint != nil && *a.DestructiveHint && (a.ReadOnlyHint == nil || !*a.ReadOnlyHint) {
			return SafetyDestructive
		}
		if a.ReadOnlyHint != nil && *a.ReadOnlyHint {
			return SafetyRead
		}
	}
	if c := d.Behavior; c != nil {
		switch c.Action {
		case tool.ActionRead, tool.ActionSearch, tool.ActionCompute:
			return SafetyRead
		case tool.ActionDelete, tool.ActionSend, tool.ActionExecute:
			return SafetyDestructive
		}
	}
	return SafetyWrite
}

// Registry holds the capabilities a kernel can run, by tool name. It is
// safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	byKey   map[string]*entry
	names   []string // sorted
	secrets []string // every capability's Secrets
	// secretsGen counts changes to secrets, so that a kernel rebuilds its
	// redactor only when one was added.
	secretsGen atomic.Uint64
	// lookup is a read-only copy of byKey that calls read without the
	// lock, so that concurrent calls do not contend on the reader count;
	// nil after an Add until the next lookup rebuilds it.
	lookup atomic.Pointer[map[string]*entry]
}

// entry is a registered capability with what the kernel compiled for it.
type entry struct {
	cap     Capability
	project *fieldTree       // compiled AllowedFields; nil when empty
	schema  *schema.Resolved // compiled input schema; nil accepts any object
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKey: make(map[string]*entry)}
}

// Add registers c. The definition must be valid, the name unused, and the
// executor set. The registry keeps its own copy.
func (r *Registry) Add(c Capability) error {
	if err := c.Definition.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidCapability, err)
	}
	if c.Executor == nil {
		return fmt.Errorf("%w: %q has no executor", ErrInvalidCapability, c.Definition.Name)
	}
	if c.Safety == "" {
		c.Safety = InferSafety(&c.Definition)
	}
	if c.Sensitivity == "" {
		c.Sensitivity = SensitivityNone
	}
	switch c.Safety {
	case SafetyRead, SafetyWrite, SafetyDestructive:
	default:
		return fmt.Errorf("%w: %q: unknown safety class %q", ErrInvalidCapability, c.Definition.Name, c.Safety)
	}
	switch c.Sensitivity {
	case SensitivityNone, SensitivityPII, SensitivityPCI, SensitivitySecrets:
	default:
		return fmt.Errorf("%w: %q: unknown sensitivity %q", ErrInvalidCapability, c.Definition.Name, c.Sensitivity)
	}
	c.AllowedFields = append([]string(nil), c.AllowedFields...)
	c.Secrets = append([]string(nil), c.Secrets...)
	if h, ok := c.Executor.(SecretHolder); ok {
		c.Secrets = append(c.Secrets, h.Secrets()...)
	}
	e := &entry{cap: c}
	if len(c.AllowedFields) > 0 {
		t, err := compileFields(c.AllowedFields)
		if err != nil {
			return fmt.Errorf("%w: %q: %w", ErrInvalidCapability, c.Definition.Name, err)
		}
		e.project = t
	}
	if len(c.Definition.InputSchema) > 0 {
		s, err := schema.Resolve(c.Definition.InputSchema, nil)
		if err != nil {
			return fmt.Errorf("%w: %q: input schema: %w", ErrInvalidCapability, c.Definition.Name, err)
		}
		e.schema = s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	name := c.Definition.Name
	if _, dup := r.byKey[name]; dup {
		return fmt.Errorf("%w: %q is already registered", ErrInvalidCapability, name)
	}
	r.byKey[name] = e
	r.lookup.Store(nil)
	if len(c.Secrets) > 0 {
		r.secrets = append(r.secrets, c.Secrets...)
		r.secretsGen.Add(1)
	}
	i := sort.SearchStrings(r.names, name)
	r.names = append(r.names, "")
	copy(r.names[i+1:], r.names[i:])
	r.names[i] = name
	return nil
}

func (r *Registry) entry(name string) *entry {
	m := r.lookup.Load()
	if m == nil {
		// Rebuilt once after a run of Adds, not once per Add.
		r.mu.Lock()
		if m = r.lookup.Load(); m == nil {
			c := maps.Clone(r.byKey)
			m = &c
			r.lookup.Store(m)
		}
		r.mu.Unlock()
	}
	return (*m)[name]
}

// secretValues returns every registered secret and the generation it
// belongs to.
func (r *Registry) secretValues() ([]string, uint64) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.secrets), r.secretsGen.Load()
}

// Lookup returns the capability named name. The result is a copy.
func (r *Registry) Lookup(name string) (Capability, bool) {
	if e := r.entry(name); e != nil {
		return e.cap, true
	}
	return Capability{}, false
}

// List returns every capability, sorted by name.
func (r *Registry) List() []Capability {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Capability, 0, len(r.names))
	for _, n := range r.names {
		out = append(out, r.byKey[n].cap)
	}
	return out
}

// Definitions returns the definitions of every capability, sorted by name,
// ready to encode for a model.
func (r *Registry) Definitions() []tool.Definition {
	caps := r.List()
	out := make([]tool.Definition, len(caps))
	for i := range caps {
		out[i] = caps[i].Definition
	}
	return out
}

// Search returns the capabilities matching every word of query (case
// insensitive) in their name, title or description, best first: a word in
// the name counts more than one in the description; ties keep name order.
func (r *Registry) Search(query string) []Capability {
	words := strings.Fields(strings.ToLower(query))
	caps := r.List()
	type scored struct {
		c     Capability
		score int
	}
	var hits []scored
	for _, c := range caps {
		name := strings.ToLower(c.Definition.Name)
		title := strings.ToLower(c.Definition.Title)
		desc := strings.ToLower(c.Definition.Description)
		score := 0
		for _, w := range words {
			s := 0
			if strings.Contains(name, w) {
				s += 3
			}
			if strings.Contains(title, w) {
				s += 2
			}
			if strings.Contains(desc, w) {
				s++
			}
			if s == 0 {
				score = -1
				break
			}
			score += s
		}
		if score >= 0 {
			hits = append(hits, scored{c, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]Capability, len(hits))
	for i, h := range hits {
		out[i] = h.c
	}
	return out
}
