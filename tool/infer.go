// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import (
	"strings"
	"unicode"
)

// InferBehavior returns d's behavior: the one its author stated, or
// one inferred from its name, description and annotations.
//
// Inference is deterministic (a pure function of d) and works on whole
// words: "get_posts" reads posts rather than posting, and "capital_city" is
// not about the web. The tool's name decides the action when it starts with
// a known verb; otherwise the description's first known verb does. Explicit
// annotations win over words: a read-only hint makes the action a read and
// a destructive hint means side effects.
func InferBehavior(d *Definition) Behavior {
	if d.Behavior != nil && !d.Behavior.Inferred {
		return *d.Behavior
	}
	// A namespaced name ("billing.list_invoices") is read by its last part.
	name := d.Name
	if i := strings.LastIndexByte(name, '.'); i >= 0 && i+1 < len(name) {
		name = name[i+1:]
	}
	nameWords := words(name)
	descWords := words(d.Description)
	c := Behavior{Inferred: true}

	c.Action = actionOf(nameWords, true)
	// The namespace still counts for the domain.
	nameWords = append(nameWords, words(d.Name[:len(d.Name)-len(name)])...)
	if c.Action == "" {
		c.Action = actionOf(descWords, false)
	}
	if a := d.Annotations; a != nil {
		switch {
		case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
			if c.Action != ActionSearch {
				c.Action = ActionRead
			}
		case a.DestructiveHint != nil && *a.DestructiveHint && c.Action == "":
			c.Action = ActionDelete
		}
	}
	c.Domain = domainOf(nameWords, descWords)

	switch c.Action {
	case ActionRead, ActionSearch, ActionCompute:
		c.SideEffects, c.Idempotent = Bool(false), Bool(true)
	case ActionDelete:
		c.SideEffects, c.Idempotent = Bool(true), Bool(true)
	case ActionCreate, ActionSend, ActionExecute:
		c.SideEffects, c.Idempotent = Bool(true), Bool(false)
	case ActionUpdate:
		c.SideEffects = Bool(true)
	}
	if a := d.Annotations; a != nil {
		if a.ReadOnlyHint != nil && *a.ReadOnlyHint {
			c.SideEffects = Bool(false)
		} else if a.DestructiveHint != nil && *a.DestructiveHint {
			c.SideEffects = Bool(true)
		}
		if a.IdempotentHint != nil {
			c.Idempotent = Bool(*a.IdempotentHint)
		}
	}

	c.Cost = CostLow
	switch {
	case c.Action == ActionExecute || c.Action == ActionSend:
		c.Cost = CostMedium
	case c.Domain == "web" || c.Domain == "search":
		c.Cost = CostMedium
	}
	return c
}

// words splits s into lower-case words at non-alphanumerics and at
// camelCase boundaries: "getUserID_v2" gives get, user, id, v2.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// verbs maps a verb, in its base form, to the action it names.
var verbs = map[string]Action{
	"get": ActionRead, "fetch": ActionRead, "read": ActionRead, "list": ActionRead,
	"show": ActionRead, "retrieve": ActionRead, "view": ActionRead, "describe": ActionRead,
	"count": ActionRead, "check": ActionRead, "load": ActionRead, "download": ActionRead,
	"return": ActionRead, "display": ActionRead, "inspect": ActionRead, "lookup": ActionSearch,
	"search": ActionSearch, "find": ActionSearch, "query": ActionSearch, "browse": ActionSearch,
	"locate": ActionSearch, "discover": ActionSearch,
	"create": ActionCreate, "add": ActionCreate, "insert": ActionCreate, "new": ActionCreate,
	"make": ActionCreate, "register": ActionCreate, "upload": ActionCreate, "write": ActionCreate,
	"save": ActionCreate, "store": ActionCreate, "generate": ActionCreate, "build": ActionCreate,
	"open": ActionCreate, "mkdir": ActionCreate, "touch": ActionCreate, "append": ActionCreate,
	"update": ActionUpdate, "set": ActionUpdate, "edit": ActionUpdate, "modify": ActionUpdate,
	"patch": ActionUpdate, "put": ActionUpdate, "rename": ActionUpdate, "change": ActionUpdate,
	"move": ActionUpdate, "enable": ActionUpdate, "disable": ActionUpdate, "toggle": ActionUpdate,
	"assign": ActionUpdate, "adjust": ActionUpdate, "replace": ActionUpdate, "mv": ActionUpdate,
	"lock": ActionUpdate, "unlock": ActionUpdate, "configure": ActionUpdate,
	"delete": ActionDelete, "remove": ActionDelete, "destroy": ActionDelete, "drop": ActionDelete,
	"purge": ActionDelete, "erase": ActionDelete, "clear": ActionDelete, "revoke": ActionDelete,
	"unregister": ActionDelete, "rm": ActionDelete, "wipe": ActionDelete, "cancel": ActionDelete,
	"send": ActionSend, "email": ActionSend, "notify": ActionSend, "publish": ActionSend,
	"reply": ActionSend, "share": ActionSend, "invite": ActionSend, "message": ActionSend,
	"tweet": ActionSend, "forward": ActionSend, "broadcast": ActionSend, "post": ActionSend,
	"run": ActionExecute, "exec": ActionExecute, "execute": ActionExecute, "invoke": ActionExecute,
	"start": ActionExecute, "stop": ActionExecute, "restart": ActionExecute, "deploy": ActionExecute,
	"launch": ActionExecute, "trigger": ActionExecute, "kill": ActionExecute, "book": ActionExecute,
	"buy": ActionExecute, "purchase": ActionExecute, "pay": ActionExecute, "order": ActionExecute,
	"transfer": ActionExecute, "sell": ActionExecute, "reserve": ActionExecute, "play": ActionExecute,
	"activate": ActionExecute, "schedule": ActionExecute, "call": ActionExecute,
	"calculate": ActionCompute, "compute": ActionCompute, "convert": ActionCompute,
	"estimate": ActionCompute, "solve": ActionCompute, "predict": ActionCompute,
	"analyze": ActionCompute, "analyse": ActionCompute, "translate": ActionCompute,
	"format": ActionCompute, "parse": ActionCompute, "validate": ActionCompute, "sort": ActionCompute,
	"sum": ActionCompute, "multiply": ActionCompute, "divide": ActionCompute, "evaluate": ActionCompute,
	"summarize": ActionCompute, "summarise": ActionCompute, "classify": ActionCompute,
	"compare": ActionCompute, "recommend": ActionCompute, "simulate": ActionCompute,
}

// actionOf finds the action a list of words names. In a name, the first
// word is tried, then the last, then those between ("get_posts",
// "user_delete", "weather_get_hourly"); in a description, the first known
// verb within its first six words counts ("Retrieves the …", "This tool
// sends …").
func actionOf(ws []string, isName bool) Action {
	if isName {
		if len(ws) == 0 {
			return ""
		}
		order := make([]string, 0, len(ws))
		order = append(order, ws[0])
		if len(ws) > 1 {
			order = append(order, ws[len(ws)-1])
			order = append(order, ws[1:len(ws)-1]...)
		}
		for _, w := range order {
			if a, ok := verbs[w]; ok {
				return a
			}
		}
		return ""
	}
	for _, w := range ws[:min(len(ws), 6)] {
		if a, ok := verbs[w]; ok {
			return a
		}
		if a, ok := verbs[baseForm(w)]; ok {
			return a
		}
	}
	return ""
}

// baseForm strips a third-person or gerund ending: "retrieves" → "retrieve",
// "searches" → "search", "sending" → "send".
func baseForm(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return w[:len(w)-3]
	}
	return w
}

// domains maps a whole word to the domain it suggests; the first domain
// word in the name wins, then the description's.
var domains = map[string]string{
	"web": "web", "url": "web", "http": "web", "https": "web", "website": "web", "webpage": "web",
	"internet": "web", "browser": "web", "html": "web", "scrape": "web", "crawl": "web",
	"file": "filesystem", "files": "filesystem", "directory": "filesystem", "folder": "filesystem",
	"filesystem": "filesystem", "mkdir": "filesystem", "ls": "filesystem", "cd": "filesystem",
	"stock": "finance", "stocks": "finance", "payment": "finance", "invoice": "finance",
	"invoices": "finance", "bank": "finance", "currency": "finance", "tax": "finance",
	"loan": "finance", "mortgage": "finance", "trading": "finance", "portfolio": "finance",
	"billing": "finance", "finance": "finance", "financial": "finance",
	"email": "communication", "emails": "communication", "sms": "communication",
	"message": "communication", "messages": "communication", "chat": "communication",
	"slack": "communication", "tweet": "communication", "notification": "communication",
	"sql": "database", "database": "database", "db": "database",
	"calendar": "calendar", "meeting": "calendar", "appointment": "calendar",
	"weather": "weather", "forecast": "weather", "temperature": "weather",
	"math": "math", "equation": "math", "integral": "math", "derivative": "math",
	"factorial": "math", "prime": "math", "algebra": "math", "geometry": "math",
	"location": "maps", "map": "maps", "route": "maps", "distance": "maps",
	"directions": "maps", "geocode": "maps", "coordinates": "maps",
	"flight": "travel", "flights": "travel", "hotel": "travel", "travel": "travel", "trip": "travel",
	"repository": "code", "repo": "code", "git": "code", "commit": "code", "code": "code",
	"search": "search", "vehicle": "vehicle", "car": "vehicle", "engine": "vehicle",
	"music": "media", "song": "media", "video": "media", "movie": "media", "image": "media",
	"user": "identity", "users": "identity", "password": "identity", "login": "identity",
}

func domainOf(nameWords, descWords []string) string {
	for _, ws := range [][]string{nameWords, descWords} {
		for _, w := range ws {
			if d, ok := domains[w]; ok {
				return d
			}
		}
	}
	return ""
}
