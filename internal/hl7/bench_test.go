package hl7

import (
	"fmt"
	"strings"
	"testing"
	"time"
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

// BenchmarkParseA01Reuse is BenchmarkParseA01 for a consumer that handles one
// message at a time and reuses its memory (a Parser and one ADT): the steady
// state of a feed, allocating nothing per message.
func BenchmarkParseA01Reuse(b *testing.B) {
	body := epicA01
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var (
		p Parser
		a ADT
	)
	for b.Loop() {
		batch, err := p.ParseString(body)
		if err != nil || len(batch.Messages) != 1 {
			b.Fatal(err)
		}
		if err := batch.Messages[0].ExtractADT(&a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// typicalA01Batch is a body of n typical admissions (epicA01: three AL1, an ODS
// with two diet codes, a Z-segment), each with its own control id and MRN, in
// MLLP frames as an interface engine batches them.
func typicalA01Batch(n int) string {
	var sb strings.Builder
	for i := range n {
		msg := strings.Replace(epicA01, "MSG00001", fmt.Sprintf("MSG%05d", i), 1)
		msg = strings.Replace(msg, "100234567^", fmt.Sprintf("%09d^", 100234567+i), 1)
		sb.WriteString("\x0b" + msg + "\x1c\r")
	}
	return sb.String()
}

// BenchmarkIngestPathA01 is the per-message cost of the API's path through this
// package: a body of 100 typical admissions parsed in place and every message
// extracted and mapped into a slice of ADTs, with the Parser and the slice
// reused from body to body as the ingest reuses them through a pool. Run with
// -cpu 1, msgs/s is per core with the garbage collector on the same core.
func BenchmarkIngestPathA01(b *testing.B) {
	body := typicalA01Batch(100)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var p Parser
	adts := make([]ADT, 100)
	for b.Loop() {
		batch, err := p.ParseString(body)
		if err != nil || len(batch.Messages) != 100 {
			b.Fatal(err, len(batch.Messages))
		}
		for i := range batch.Messages {
			if err := batch.Messages[i].ExtractADT(&adts[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)*100/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkIngestPathA01Alloc is BenchmarkIngestPathA01 allocating afresh for
// every body (ParseString and a new slice of ADTs), for consumers that keep
// the extracted values.
func BenchmarkIngestPathA01Alloc(b *testing.B) {
	body := typicalA01Batch(100)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		batch, err := ParseString(body)
		if err != nil || len(batch.Messages) != 100 {
			b.Fatal(err, len(batch.Messages))
		}
		adts := make([]ADT, len(batch.Messages))
		for i := range batch.Messages {
			if err := batch.Messages[i].ExtractADT(&adts[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)*100/b.Elapsed().Seconds(), "msgs/s")
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

// BenchmarkMapAllergenUncached and BenchmarkMapDietUncached measure the matching
// itself, as for a text the cache has not seen.
func BenchmarkMapAllergenUncached(b *testing.B) {
	c := CodedValue{Code: "F0012", Text: "Peanuts - anaphylaxis; also walnuts"}
	b.ReportAllocs()
	for b.Loop() {
		mapAllergen(CategoryFood, c)
	}
}

func BenchmarkMapDietUncached(b *testing.B) {
	c := CodedValue{Code: "CARD2GNA", Text: "Cardiac 2gm Na, Consistent Carbohydrate"}
	b.ReportAllocs()
	for b.Loop() {
		mapDiet(c)
	}
}

// BenchmarkMapDietExactUncached: codes and texts that are each a table phrase
// as a whole, the usual case, answered by one probe of the precomputed table.
func BenchmarkMapDietExactUncached(b *testing.B) {
	c := CodedValue{Code: "REG", Text: "Regular Diet"}
	b.ReportAllocs()
	for b.Loop() {
		mapDiet(c)
	}
}

// BenchmarkACKBatch100 is what the ER7 mode adds to an ingest of 100 messages: parsing the body
// again and writing one ACK per message.
func BenchmarkACKBatch100(b *testing.B) {
	body := strings.Repeat("\x0b"+epicA01+"\x1c\r", 100)
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		batch, err := ParseString(body)
		if err != nil {
			b.Fatal(err)
		}
		out = out[:0]
		for i := range batch.Messages {
			out = AppendACK(out, &batch.Messages[i], Ack{Code: AckAccept, ControlID: "ACK-1", At: at})
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "acks/s")
}
