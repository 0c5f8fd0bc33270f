package fhir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Limits of one body. A bundle beyond them is refused whole, before any resource is decoded.
const (
	// MaxEntries bounds the entries of a bundle: an interface engine sends a patient's changes,
	// not a hospital's.
	MaxEntries = 1000
	// MaxDepth bounds the nesting of objects and arrays; the resources read here nest less than
	// ten deep.
	MaxDepth = 32
)

// Bundle types taken.
const (
	Transaction = "transaction"
	Batch       = "batch"
)

// Error is a body that cannot be taken, with the FHIR issue code that says why.
type Error struct {
	Issue   string // the FHIR issue type: invalid, too-costly, not-supported
	Message string
}

func (e *Error) Error() string { return e.Message }

// Parse reads a request Bundle. It refuses a body nested deeper than MaxDepth, one that is not a
// Bundle of type transaction or batch, and one with more than MaxEntries entries.
func Parse(raw []byte) (*Bundle, error) {
	if d := depth(raw); d > MaxDepth {
		return nil, &Error{Issue: "too-costly", Message: fmt.Sprintf("The body nests %d levels deep; at most %d are taken", d, MaxDepth)}
	}
	var head struct {
		ResourceType string            `json:"resourceType"`
		Type         string            `json:"type"`
		Entry        []json.RawMessage `json:"entry"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, &Error{Issue: "invalid", Message: "The body is not a FHIR resource: " + err.Error()}
	}
	if head.ResourceType != "Bundle" {
		what := "a " + head.ResourceType
		if head.ResourceType == "" {
			what = "a resource without resourceType"
		}
		return nil, &Error{Issue: "invalid", Message: "The body must be a Bundle of type transaction or batch, not " + what}
	}
	if head.Type != Transaction && head.Type != Batch {
		return nil, &Error{Issue: "not-supported", Message: fmt.Sprintf("A Bundle of type %q is not taken: send a transaction or a batch", head.Type)}
	}
	if len(head.Entry) > MaxEntries {
		return nil, &Error{Issue: "too-costly", Message: fmt.Sprintf("The bundle holds %d entries; at most %d are taken in one bundle", len(head.Entry), MaxEntries)}
	}
	b := &Bundle{ResourceType: head.ResourceType, Type: head.Type, Entry: make([]Entry, len(head.Entry))}
	for i, e := range head.Entry {
		// An entry that is not an object is kept empty and answered per entry.
		_ = json.Unmarshal(e, &b.Entry[i])
	}
	return b, nil
}

// depth returns the deepest nesting of objects and arrays in a JSON text, outside strings.
func depth(raw []byte) int {
	d, max, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if d++; d > max {
				max = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return max
}

// ResourceType reads the resourceType of a raw resource ("" when there is none).
func ResourceType(raw json.RawMessage) string {
	var h struct {
		ResourceType string `json:"resourceType"`
	}
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &h) != nil {
		return ""
	}
	return h.ResourceType
}

// Target is what a reference points to: an entry of the bundle, or a patient by identifier.
type Target struct {
	Entry      int    // index of the entry; -1 when none
	Identifier string // the identifier value of a conditional or logical reference
	System     string
}

// Index finds the entries of a bundle by fullUrl and by type and id.
type Index struct {
	byURL  map[string]int
	byType map[string]int // "Patient/example"
}

// NewIndex indexes the entries; ids gives each entry's resource type and id.
func NewIndex(b *Bundle, ids func(i int) (typ, id string)) *Index {
	x := &Index{byURL: map[string]int{}, byType: map[string]int{}}
	for i := range b.Entry {
		if u := b.Entry[i].FullURL; u != "" {
			if _, dup := x.byURL[u]; !dup {
				x.byURL[u] = i
			}
		}
		if typ, id := ids(i); typ != "" && id != "" {
			k := typ + "/" + id
			if _, dup := x.byType[k]; !dup {
				x.byType[k] = i
			}
		}
	}
	return x
}

// Resolve finds what a reference to a resource of type typ points to. A literal reference must
// name an entry of the bundle: by its fullUrl (urn:uuid: or absolute), or as typ/id. A
// conditional reference (typ?identifier=[system|]value) and a logical reference (identifier)
// name the patient by identifier.
func (x *Index) Resolve(typ string, r *Reference) (Target, error) {
	none := Target{Entry: -1}
	if r == nil || (r.Reference == "" && r.Identifier == nil) {
		return none, fmt.Errorf("no %s reference", typ)
	}
	if r.Reference == "" {
		if r.Identifier.Value == "" {
			return none, fmt.Errorf("the %s reference's identifier has no value", typ)
		}
		return Target{Entry: -1, Identifier: r.Identifier.Value, System: r.Identifier.System}, nil
	}
	ref := r.Reference
	if q, ok := strings.CutPrefix(ref, typ+"?"); ok {
		vals, err := url.ParseQuery(q)
		if err != nil || vals.Get("identifier") == "" {
			return none, fmt.Errorf("conditional reference %q: only %s?identifier=[system|]value is taken", clip(ref), typ)
		}
		id := vals.Get("identifier")
		sys, val, found := strings.Cut(id, "|")
		if !found {
			sys, val = "", id
		}
		if val == "" {
			return none, fmt.Errorf("conditional reference %q has no identifier value", clip(ref))
		}
		return Target{Entry: -1, Identifier: val, System: sys}, nil
	}
	if i, ok := x.byURL[ref]; ok {
		return Target{Entry: i}, nil
	}
	if i, ok := x.byType[ref]; ok {
		return Target{Entry: i}, nil
	}
	// An absolute URL whose tail is typ/id of an entry.
	if k := tail(ref); k != "" {
		if i, ok := x.byType[k]; ok {
			return Target{Entry: i}, nil
		}
	}
	return none, fmt.Errorf("reference %q is not an entry of the bundle (send the %s in the bundle, or refer to it as %s?identifier=system|value)", clip(ref), typ, typ)
}

// tail returns the last two path segments of a URL ("Patient/example").
func tail(ref string) string {
	parts := strings.Split(strings.TrimRight(ref, "/"), "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

// clip bounds a value quoted back in a diagnostic.
func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
