package fhir

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseRefusals(t *testing.T) {
	for _, c := range []struct {
		name, body, issue string
	}{
		{"not a bundle", `{"resourceType":"Patient"}`, "invalid"},
		{"no resourceType", `{"type":"batch"}`, "invalid"},
		{"a document", `{"resourceType":"Bundle","type":"document"}`, "not-supported"},
		{"not JSON", `{"resourceType":`, "invalid"},
		{"deep", `{"resourceType":"Bundle","type":"batch","x":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`, "too-costly"},
		{"too many entries", `{"resourceType":"Bundle","type":"batch","entry":[` + strings.TrimSuffix(strings.Repeat(`{},`, MaxEntries+1), ",") + `]}`, "too-costly"},
	} {
		_, err := Parse([]byte(c.body))
		var e *Error
		if !errors.As(err, &e) || e.Issue != c.issue {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Brackets inside strings are not nesting; an entry that is not an object is kept empty.
	b, err := Parse([]byte(`{"resourceType":"Bundle","type":"transaction","entry":[{"fullUrl":"u","resource":{"resourceType":"Basic","t":"` +
		strings.Repeat("[{", 100) + `\"]"}}, 7]}`))
	if err != nil || len(b.Entry) != 2 || b.Entry[0].FullURL != "u" || len(b.Entry[1].Resource) != 0 {
		t.Fatalf("%+v %v", b, err)
	}
}

func TestResolve(t *testing.T) {
	b := &Bundle{Entry: []Entry{
		{FullURL: "urn:uuid:1", Resource: json.RawMessage(`{"resourceType":"Patient","id":"p1"}`)},
		{FullURL: "http://h.example/fhir/Patient/p2", Resource: json.RawMessage(`{"resourceType":"Patient","id":"p2"}`)},
	}}
	x := NewIndex(b, func(i int) (string, string) { return "Patient", []string{"p1", "p2"}[i] })
	for _, c := range []struct {
		ref        Reference
		entry      int
		identifier string
		system     string
		fails      bool
	}{
		{ref: Reference{Reference: "urn:uuid:1"}, entry: 0},
		{ref: Reference{Reference: "Patient/p1"}, entry: 0},
		{ref: Reference{Reference: "http://h.example/fhir/Patient/p2"}, entry: 1},
		{ref: Reference{Reference: "http://other.example/fhir/Patient/p2"}, entry: 1},
		{ref: Reference{Reference: "Patient?identifier=urn:oid:1.2|12345"}, entry: -1, identifier: "12345", system: "urn:oid:1.2"},
		{ref: Reference{Reference: "Patient?identifier=12345"}, entry: -1, identifier: "12345"},
		{ref: Reference{Identifier: &Identifier{System: "s", Value: "9"}}, entry: -1, identifier: "9", system: "s"},
		{ref: Reference{Reference: "Patient?name=Doe"}, fails: true},
		{ref: Reference{Reference: "Patient?identifier=s|"}, fails: true},
		{ref: Reference{Reference: "urn:uuid:2"}, fails: true},
		{ref: Reference{Reference: "Patient/p3"}, fails: true},
		{ref: Reference{}, fails: true},
	} {
		got, err := x.Resolve("Patient", &c.ref)
		if c.fails {
			if err == nil {
				t.Errorf("%+v resolved to %+v", c.ref, got)
			}
			continue
		}
		if err != nil || got.Entry != c.entry || got.Identifier != c.identifier || got.System != c.system {
			t.Errorf("%+v: %+v %v", c.ref, got, err)
		}
	}
}

func TestPick(t *testing.T) {
	cc := &CodeableConcept{Coding: []Coding{{System: "http://local", Code: "1040", Display: "Low Sodium"},
		{System: SNOMED, Code: "386619000", Display: "Low sodium diet"}}}
	if c := Pick(cc); c.Code != "386619000" || c.Text != "Low sodium diet" || c.System != SNOMED {
		t.Errorf("%+v", c)
	}
	if c := Pick(&CodeableConcept{Text: "Regular Diet"}); c.Code != "" || c.Text != "Regular Diet" {
		t.Errorf("text only %+v", c)
	}
}
