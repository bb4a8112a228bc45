// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package wire

// The readers and writers below are for toolgate's own metadata
// (annotations, capability, security, extensions) in its canonical form,
// which the canonical and jsonschema codecs both carry.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/codec"
	"github.com/toolgate/toolgate/internal/strictjson"
	"github.com/toolgate/toolgate/tool"
)

// OnlyKeys checks that every member name of the object v is one of keys,
// exactly: encoding/json matches names case-insensitively, and toolgate
// decodes untrusted JSON case-sensitively.
func OnlyKeys(v []byte, ptr string, keys ...string) error {
	if strictjson.KindOf(v) != strictjson.Object {
		return Errf(codec.ErrUnknownShape, ptr, "want an object, got %s", strictjson.KindOf(v))
	}
	return strictjson.Members(v, func(k, _ []byte) error {
		for _, want := range keys {
			if string(k) == want {
				return nil
			}
		}
		return Errf(codec.ErrUnknownShape, Member(ptr, string(k)), "unknown member")
	})
}

// decodeStrict decodes the object v, already checked, into dst after
// checking its names.
func decodeStrict(v []byte, ptr string, dst any, keys ...string) error {
	if err := OnlyKeys(v, ptr, keys...); err != nil {
		return err
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return Errf(codec.ErrUnknownShape, ptr, "%s", unmarshalProblem(err))
	}
	return nil
}

// unmarshalProblem describes an encoding/json error on a checked value
// without its values.
func unmarshalProblem(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Sprintf("member %s is a JSON %s, want %s", te.Field, te.Value, te.Type)
	}
	return "does not decode"
}

var (
	annotationKeys = []string{"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
	capabilityKeys = []string{"action", "domain", "side_effects", "idempotent", "cost", "inferred"}
	securityKeys   = []string{"required_permissions", "data_classification", "pii"}
)

// DecodeAnnotations reads the canonical form of the value at ptr.
func DecodeAnnotations(v []byte, ptr string) (*tool.Annotations, error) {
	a := &tool.Annotations{}
	return a, decodeStrict(v, ptr, a, annotationKeys...)
}

// DecodeCapability reads the canonical form of the value at ptr.
func DecodeCapability(v []byte, ptr string) (*tool.Behavior, error) {
	c := &tool.Behavior{}
	if err := decodeStrict(v, ptr, c, capabilityKeys...); err != nil {
		return nil, err
	}
	switch c.Action {
	case "", tool.ActionRead, tool.ActionSearch, tool.ActionCreate, tool.ActionUpdate, tool.ActionDelete, tool.ActionExecute, tool.ActionSend, tool.ActionCompute:
	default:
		return nil, Errf(codec.ErrUnknownShape, Member(ptr, "action"), "unknown action")
	}
	switch c.Cost {
	case "", tool.CostLow, tool.CostMedium, tool.CostHigh:
	default:
		return nil, Errf(codec.ErrUnknownShape, Member(ptr, "cost"), "unknown cost")
	}
	return c, nil
}

// DecodeSecurity reads the canonical form of the value at ptr.
func DecodeSecurity(v []byte, ptr string) (*tool.Security, error) {
	s := &tool.Security{}
	if err := decodeStrict(v, ptr, s, securityKeys...); err != nil {
		return nil, err
	}
	switch s.DataClassification {
	case "", tool.ClassPublic, tool.ClassInternal, tool.ClassConfidential, tool.ClassRestricted:
	default:
		return nil, Errf(codec.ErrUnknownShape, Member(ptr, "data_classification"), "unknown classification")
	}
	switch s.PII {
	case "", tool.PIINone, tool.PIIMay, tool.PIIRedact, tool.PIIDeny:
	default:
		return nil, Errf(codec.ErrUnknownShape, Member(ptr, "pii"), "unknown PII handling")
	}
	return s, nil
}

// DecodeExtensions reads an object of extension values, kept raw.
func DecodeExtensions(v []byte, ptr string) (tool.Extensions, error) {
	if strictjson.KindOf(v) != strictjson.Object {
		return nil, Errf(codec.ErrUnknownShape, ptr, "extensions must be an object, got %s", strictjson.KindOf(v))
	}
	var e tool.Extensions
	err := strictjson.Members(v, func(k, val []byte) error {
		e = e.Set(string(k), Clone(val))
		return nil
	})
	return e, err
}

// Marshal writes a small struct of ours without HTML escaping, so that the
// output is the same bytes on every run.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// AppendExtensions writes e as an object with sorted keys.
func AppendExtensions(dst []byte, e tool.Extensions, ptr string) ([]byte, error) {
	dst = append(dst, '{')
	first := true
	for _, k := range SortedKeys(e) {
		if !ValidRaw(e[k]) {
			return nil, Errf(codec.ErrUnknownShape, Member(ptr, k), "extension is not valid JSON")
		}
		dst = AppendMember(dst, &first, k, e[k])
	}
	return append(dst, '}'), nil
}

// AppendMeta appends the definition's annotations, capability and
// security, those it has, as members named by keys in that order.
func AppendMeta(dst []byte, first *bool, d *tool.Definition, keys [3]string) ([]byte, error) {
	for _, m := range []struct {
		key string
		v   any
		set bool
	}{{keys[0], d.Annotations, d.Annotations != nil}, {keys[1], d.Behavior, d.Behavior != nil}, {keys[2], d.Security, d.Security != nil}} {
		if !m.set {
			continue
		}
		b, err := Marshal(m.v)
		if err != nil {
			return nil, err
		}
		dst = AppendMember(dst, first, m.key, b)
	}
	return dst, nil
}

// AppendExtensionsMember appends e, unless empty, as the member key, an
// object with sorted keys; ptr is where the definition is.
func AppendExtensionsMember(dst []byte, first *bool, key string, e tool.Extensions, ptr string) ([]byte, error) {
	if len(e) == 0 {
		return dst, nil
	}
	dst = AppendMember(dst, first, key, nil)
	return AppendExtensions(dst, e, Member(ptr, "extensions"))
}
