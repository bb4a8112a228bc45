// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Result is what goes back to the model for one [Call].
//
// A tool's failure is a Result with IsError set, never a Go error: the model
// reads the content and can act on it.
type Result struct {
	// CallID is the [Call.ID] this result answers.
	CallID string `json:"call_id"`
	// Name is the tool's name; Gemini pairs results by name, not id.
	Name    string    `json:"name,omitempty"`
	Content []Content `json:"content"`
	// StructuredContent is a JSON value matching the tool's output schema.
	StructuredContent json.RawMessage `json:"structured_content,omitempty"`
	IsError           bool            `json:"is_error,omitempty"`
	Extensions        Extensions      `json:"extensions,omitempty"`
}

// ErrorResult returns a result for callID that tells the model msg and is
// marked as an error.
func ErrorResult(callID, msg string) Result {
	return Result{CallID: callID, Content: []Content{&Text{Text: msg}}, IsError: true}
}

// TextResult returns a result for callID holding one text part.
func TextResult(callID, text string) Result {
	return Result{CallID: callID, Content: []Content{&Text{Text: text}}}
}

// Text returns the result's text parts and JSON parts joined by newlines:
// what a provider that takes one string (OpenAI's "content") gets.
// When the result has only structured content, that is returned.
func (r *Result) Text() string {
	var b strings.Builder
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *Text:
			b.WriteString(c.Text)
		case *JSON:
			b.Write(c.Value)
		case *Image:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *Audio:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *Resource:
			if c.Text != "" {
				b.WriteString(c.Text)
			} else {
				fmt.Fprintf(&b, "[resource %s]", c.URI)
			}
		}
	}
	if b.Len() == 0 && len(r.StructuredContent) > 0 {
		return string(r.StructuredContent)
	}
	return b.String()
}

// Content is one part of a [Result]: [*Text], [*JSON], [*Image], [*Audio]
// or [*Resource]. The set is closed.
type Content interface {
	content()
}

// Text is a text part.
type Text struct {
	Text string `json:"text"`
}

// JSON is a JSON value given as a part of its own (LangChain and Anthropic
// accept these; others get its text).
type JSON struct {
	Value json.RawMessage `json:"value"`
}

// Image is an image part; Data holds the decoded bytes.
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// Audio is an audio part; Data holds the decoded bytes.
type Audio struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// Resource is an embedded resource or a link to one. Exactly one of Text
// and Blob is set for embedded contents; neither for a link.
type Resource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mime_type,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
	// Link is true for a resource link (MCP "resource_link"), false for an
	// embedded resource.
	Link bool `json:"link,omitempty"`
}

func (*Text) content()     {}
func (*JSON) content()     {}
func (*Image) content()    {}
func (*Audio) content()    {}
func (*Resource) content() {}

// wireContent is the canonical JSON form of one content part.
type wireContent struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	MIMEType string          `json:"mime_type,omitempty"`
	Data     []byte          `json:"data,omitempty"`
	URI      string          `json:"uri,omitempty"`
	Blob     []byte          `json:"blob,omitempty"`
	Link     bool            `json:"link,omitempty"`
}

// ErrUnknownContent reports a content part of a type this model lacks.
var ErrUnknownContent = errors.New("tool: unknown content type")

// MarshalJSON writes the result in canonical form, each content part
// tagged with its "type".
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	w := struct {
		plain
		Content []wireContent `json:"content"`
	}{plain: plain(r), Content: make([]wireContent, 0, len(r.Content))}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *Text:
			w.Content = append(w.Content, wireContent{Type: "text", Text: c.Text})
		case *JSON:
			w.Content = append(w.Content, wireContent{Type: "json", Value: c.Value})
		case *Image:
			w.Content = append(w.Content, wireContent{Type: "image", MIMEType: c.MIMEType, Data: c.Data})
		case *Audio:
			w.Content = append(w.Content, wireContent{Type: "audio", MIMEType: c.MIMEType, Data: c.Data})
		case *Resource:
			w.Content = append(w.Content, wireContent{Type: "resource", URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob, Link: c.Link})
		default:
			return nil, fmt.Errorf("%w: %T", ErrUnknownContent, c)
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the canonical form written by [Result.MarshalJSON].
func (r *Result) UnmarshalJSON(data []byte) error {
	type plain Result
	var w struct {
		plain
		Content []wireContent `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Result(w.plain)
	r.Content = nil
	for i, c := range w.Content {
		switch c.Type {
		case "text":
			r.Content = append(r.Content, &Text{Text: c.Text})
		case "json":
			r.Content = append(r.Content, &JSON{Value: c.Value})
		case "image":
			r.Content = append(r.Content, &Image{MIMEType: c.MIMEType, Data: c.Data})
		case "audio":
			r.Content = append(r.Content, &Audio{MIMEType: c.MIMEType, Data: c.Data})
		case "resource":
			r.Content = append(r.Content, &Resource{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob, Link: c.Link})
		default:
			return fmt.Errorf("%w: content/%d: %q", ErrUnknownContent, i, c.Type)
		}
	}
	return nil
}
