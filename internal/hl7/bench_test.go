package hl7

import (
	"strings"
	"testing"
)

// BenchmarkParseA01 is the unit of work per message in the API: split, parse
// and extract a typical admission with three AL1 and an ODS, mapping
// included.
func BenchmarkParseA01(b *testing.B) {
	body := []byte(epicA01)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.ADT(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkParseOnlyA01 is the generic parser without extraction.
func BenchmarkParseOnlyA01(b *testing.B) {
	body := []byte(epicA01)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(body); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkParseBatch100 is one request carrying 100 mixed messages in MLLP
// frames, every one extracted.
func BenchmarkParseBatch100(b *testing.B) {
	flavours := []string{epicA01, withTerminators(cernerA02, "\r\n"), withTerminators(meditechA03, "\n"), legacyA08, ormO01, omdO03, v27A01, a04}
	var sb strings.Builder
	for i := range 100 {
		sb.WriteString("\x0b" + flavours[i%len(flavours)] + "\x1c\r")
	}
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		batch, err := ParseBatch(body)
		if err != nil || len(batch.Messages) != 100 {
			b.Fatal(err, len(batch.Messages))
		}
		for i := range batch.Messages {
			if _, err := batch.Messages[i].ADT(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)*100/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkMapAllergen(b *testing.B) {
	c := CodedValue{Code: "F0012", Text: "Peanuts - anaphylaxis; also walnuts"}
	b.ReportAllocs()
	for b.Loop() {
		MapAllergen(CategoryFood, c)
	}
}

func BenchmarkMapDiet(b *testing.B) {
	c := CodedValue{Code: "CARD2GNA", Text: "Cardiac 2gm Na, Consistent Carbohydrate"}
	b.ReportAllocs()
	for b.Loop() {
		MapDiet(c)
	}
}
