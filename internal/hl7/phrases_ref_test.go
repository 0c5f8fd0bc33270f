package hl7

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// findReference is the matcher's scan as first written: normalise, then look
// words up one by one. find must agree with it on every input.
func (m *matcher[T]) findReference(s string, h *hits[T]) {
	var buf [matchText + 8]byte
	norm := normalize(buf[:0], s)
	if len(norm) == 0 {
		return
	}

	// Fold plurals in place (words only get shorter) and note each word's
	// span and table entry.
	type word struct {
		from, to uint8 // matchText < 256
		slot     int32 // index into m.slots, -1 when unknown
	}
	var words [matchWords]word
	nw, out := 0, 0
	for i := 0; i < len(norm) && nw < len(words); {
		j := i
		for j < len(norm) && norm[j] != ' ' {
			j++
		}
		w := norm[i:j]
		sl := m.lookup(fnv(fnvOffset, w), w)
		if sl < 0 && len(w) > 3 && w[len(w)-1] == 's' {
			if sl = m.lookup(fnv(fnvOffset, w[:len(w)-1]), w[:len(w)-1]); sl >= 0 {
				w = w[:len(w)-1]
			} else if len(w) > 4 && w[len(w)-2] == 'e' {
				if sl = m.lookup(fnv(fnvOffset, w[:len(w)-2]), w[:len(w)-2]); sl >= 0 {
					w = w[:len(w)-2]
				}
			}
		}
		if out > 0 {
			norm[out] = ' '
			out++
		}
		words[nw] = word{from: uint8(out), to: uint8(out + len(w)), slot: sl}
		out += copy(norm[out:], w)
		nw++
		i = j + 1
	}

	for i := 0; i < nw; {
		if words[i].slot < 0 {
			i++
			continue
		}
		first := &m.slots[words[i].slot]
		var best []T
		bestK := 0
		if first.isPhrase {
			best, bestK = first.targets, 1
		}
		hash := first.hash
		for k := 2; k <= int(first.longest) && i+k <= nw; k++ {
			next := words[i+k-1]
			hash = fnv((hash^' ')*fnvPrime, norm[next.from:next.to])
			if si := m.lookup(hash, norm[words[i].from:next.to]); si >= 0 && m.slots[si].isPhrase {
				best, bestK = m.slots[si].targets, k
			}
		}
		if bestK == 0 {
			i++
			continue
		}
		h.add(best)
		i += bestK
	}
}

func findAll[T comparable](m *matcher[T], s string, ref bool) ([]T, bool) {
	var h hits[T]
	if ref {
		m.findReference(s, &h)
	} else {
		m.find(s, &h)
	}
	return h.result(), h.recognised
}

// TestFindMatchesReference checks the one-pass scan against the original on
// phrases, their plurals and mixtures, long texts and random bytes.
func TestFindMatchesReference(t *testing.T) {
	var inputs []string
	var words []string
	for _, m := range []interface{ keys() []string }{allergenWords, dietWords} {
		for _, k := range m.keys() {
			inputs = append(inputs, k, strings.ToUpper(k), k+"s", k+"es", "no "+k, k+" 2gm na", "("+k+")", k+"'s diet")
			words = append(words, strings.Fields(k)...)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for j := range 1 + r.IntN(12) {
			if j > 0 {
				b.WriteString([]string{" ", "  ", ", ", "-", "/", "", "'", "1", "2gm "}[r.IntN(9)])
			}
			w := words[r.IntN(len(words))]
			if r.IntN(4) == 0 {
				w += "s"
			}
			if r.IntN(3) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
		}
		inputs = append(inputs, b.String())
	}
	long := strings.Repeat("peanut butter and ", 30)
	inputs = append(inputs, long, long+"eggs", strings.Repeat("a ", 60)+"milk", strings.Repeat("x", 300), strings.Repeat("nuts ", 50))
	for range 2000 {
		raw := make([]byte, r.IntN(260))
		for i := range raw {
			raw[i] = byte(r.IntN(256))
		}
		inputs = append(inputs, string(raw))
	}
	for _, in := range inputs {
		a1, r1 := findAll(allergenWords, in, false)
		a2, r2 := findAll(allergenWords, in, true)
		d1, q1 := findAll(dietWords, in, false)
		d2, q2 := findAll(dietWords, in, true)
		if !slices.Equal(a1, a2) || r1 != r2 || !slices.Equal(d1, d2) || q1 != q2 {
			t.Fatalf("%q: allergens %v/%v (%v/%v), diets %v/%v (%v/%v)", in, a1, a2, r1, r2, d1, d2, q1, q2)
		}
	}
}

func (m *matcher[T]) keys() []string {
	var out []string
	for _, s := range m.slots {
		if s.used && s.isPhrase {
			out = append(out, s.key)
		}
	}
	return out
}
