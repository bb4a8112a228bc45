// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package bfcl

// The warning codes this package reports.
const (
	codeTypeMapped  = "bfcl-type-mapped"
	codeTypeAny     = "bfcl-type-any"
	codeTypeEmpty   = "bfcl-type-empty"
	codeTypeUnknown = "bfcl-type-unknown"
	codeOptional    = "bfcl-optional"
	codeTupleItems  = "bfcl-tuple-items"
	codeIgnored     = "bfcl-field-ignored"
	codeDuplicate   = "bfcl-duplicate-skipped"
	codeNoFunctions = "bfcl-no-functions"
)

// mapType returns the JSON Schema type for a BFCL type name, with the code
// and message of the warning the mapping produces. code is "" when t is
// already a JSON Schema type; to is "" when the type is dropped.
//
// The mapping follows BFCL's own GORILLA_TO_OPENAPI table, widened to the
// Java and Python spellings hand-written catalogs use. The messages are
// constants so that the mapping allocates nothing.
func mapType(t []byte) (to, code, msg string) {
	switch string(t) {
	case "object":
		return "object", "", ""
	case "string":
		return "string", "", ""
	case "integer":
		return "integer", "", ""
	case "number":
		return "number", "", ""
	case "boolean":
		return "boolean", "", ""
	case "array":
		return "array", "", ""
	case "null":
		return "null", "", ""
	case "":
		return "", codeTypeEmpty, `empty type removed: the value may be of any JSON type`
	case "dict":
		return "object", codeTypeMapped, `type "dict" is BFCL dialect, mapped to "object"`
	case "Dict":
		return "object", codeTypeMapped, `type "Dict" is BFCL dialect, mapped to "object"`
	case "HashMap":
		return "object", codeTypeMapped, `type "HashMap" is BFCL dialect, mapped to "object"`
	case "Hashtable":
		return "object", codeTypeMapped, `type "Hashtable" is BFCL dialect, mapped to "object"`
	case "Map":
		return "object", codeTypeMapped, `type "Map" is BFCL dialect, mapped to "object"`
	case "map":
		return "object", codeTypeMapped, `type "map" is BFCL dialect, mapped to "object"`
	case "Object":
		return "object", codeTypeMapped, `type "Object" is BFCL dialect, mapped to "object"`
	case "TreeMap":
		return "object", codeTypeMapped, `type "TreeMap" is BFCL dialect, mapped to "object"`
	case "LinkedHashMap":
		return "object", codeTypeMapped, `type "LinkedHashMap" is BFCL dialect, mapped to "object"`
	case "float":
		return "number", codeTypeMapped, `type "float" is BFCL dialect, mapped to "number"`
	case "double":
		return "number", codeTypeMapped, `type "double" is BFCL dialect, mapped to "number"`
	case "Float":
		return "number", codeTypeMapped, `type "Float" is BFCL dialect, mapped to "number"`
	case "Double":
		return "number", codeTypeMapped, `type "Double" is BFCL dialect, mapped to "number"`
	case "Number":
		return "number", codeTypeMapped, `type "Number" is BFCL dialect, mapped to "number"`
	case "decimal":
		return "number", codeTypeMapped, `type "decimal" is BFCL dialect, mapped to "number"`
	case "long":
		return "integer", codeTypeMapped, `type "long" is BFCL dialect, mapped to "integer"`
	case "short":
		return "integer", codeTypeMapped, `type "short" is BFCL dialect, mapped to "integer"`
	case "byte":
		return "integer", codeTypeMapped, `type "byte" is BFCL dialect, mapped to "integer"`
	case "Bigint":
		return "integer", codeTypeMapped, `type "Bigint" is BFCL dialect, mapped to "integer"`
	case "BigInteger":
		return "integer", codeTypeMapped, `type "BigInteger" is BFCL dialect, mapped to "integer"`
	case "int":
		return "integer", codeTypeMapped, `type "int" is BFCL dialect, mapped to "integer"`
	case "Integer":
		return "integer", codeTypeMapped, `type "Integer" is BFCL dialect, mapped to "integer"`
	case "Long":
		return "integer", codeTypeMapped, `type "Long" is BFCL dialect, mapped to "integer"`
	case "Short":
		return "integer", codeTypeMapped, `type "Short" is BFCL dialect, mapped to "integer"`
	case "Byte":
		return "integer", codeTypeMapped, `type "Byte" is BFCL dialect, mapped to "integer"`
	case "tuple":
		return "array", codeTypeMapped, `type "tuple" is BFCL dialect, mapped to "array"`
	case "ArrayList":
		return "array", codeTypeMapped, `type "ArrayList" is BFCL dialect, mapped to "array"`
	case "Array":
		return "array", codeTypeMapped, `type "Array" is BFCL dialect, mapped to "array"`
	case "list":
		return "array", codeTypeMapped, `type "list" is BFCL dialect, mapped to "array"`
	case "List":
		return "array", codeTypeMapped, `type "List" is BFCL dialect, mapped to "array"`
	case "Queue":
		return "array", codeTypeMapped, `type "Queue" is BFCL dialect, mapped to "array"`
	case "Stack":
		return "array", codeTypeMapped, `type "Stack" is BFCL dialect, mapped to "array"`
	case "Set":
		return "array", codeTypeMapped, `type "Set" is BFCL dialect, mapped to "array"`
	case "set":
		return "array", codeTypeMapped, `type "set" is BFCL dialect, mapped to "array"`
	case "LinkedList":
		return "array", codeTypeMapped, `type "LinkedList" is BFCL dialect, mapped to "array"`
	case "char":
		return "string", codeTypeMapped, `type "char" is BFCL dialect, mapped to "string"`
	case "String":
		return "string", codeTypeMapped, `type "String" is BFCL dialect, mapped to "string"`
	case "str":
		return "string", codeTypeMapped, `type "str" is BFCL dialect, mapped to "string"`
	case "Character":
		return "string", codeTypeMapped, `type "Character" is BFCL dialect, mapped to "string"`
	case "Boolean":
		return "boolean", codeTypeMapped, `type "Boolean" is BFCL dialect, mapped to "boolean"`
	case "bool":
		return "boolean", codeTypeMapped, `type "bool" is BFCL dialect, mapped to "boolean"`
	case "any":
		return "string", codeTypeAny, `type "any" mapped to "string" as BFCL maps it; values of other JSON types no longer validate`
	case "Any":
		return "string", codeTypeAny, `type "Any" mapped to "string" as BFCL maps it; values of other JSON types no longer validate`
	}
	return "", codeTypeUnknown, `unknown type removed: the value may be of any JSON type`
}

// truthy reports whether a BFCL "optional" value means optional: true,
// "true", "True" and "yes" do.
func truthy(v []byte) bool {
	switch string(v) {
	case `true`, `"true"`, `"True"`, `"yes"`, `"Yes"`:
		return true
	}
	return false
}
