package hl7

import "strings"

// phrase is one table row: the phrases that mean targets. Rows with no
// targets are recognised but deliberately mean nothing — they stop a shorter
// phrase from matching inside them ("water chestnut" is not a tree nut,
// "advance diet as tolerated" is not a regular diet).
type phrase[T comparable] struct {
	targets []T
	words   []string
}

// matcher finds table phrases in free text: normalised (see normalize),
// trailing plural "s"/"es" folded when only the singular is known, and
// matched greedily left to right, longest phrase first.
//
// Mapping runs several times per message, so the table is an open-addressing
// hash table keyed by FNV-1a: the hash of "a b c" extends the hash of "a b",
// so each candidate phrase costs one probe and no rehashing of its prefix.
type matcher[T comparable] struct {
	slots []slot[T]
	mask  uint64
	dups  []string // phrases listed twice; reported by tests
}

type slot[T comparable] struct {
	key      string
	hash     uint64
	targets  []T
	used     bool
	isPhrase bool  // key is a whole phrase (else only a word of one)
	longest  uint8 // for words: words in the longest phrase starting here
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func newMatcher[T comparable](rows []phrase[T]) *matcher[T] {
	n := 0
	for _, r := range rows {
		n += len(r.words) * 3
	}
	size := 64
	for size < 2*n {
		size *= 2
	}
	m := &matcher[T]{slots: make([]slot[T], size), mask: uint64(size - 1)}
	for _, r := range rows {
		targets := r.targets[:len(r.targets):len(r.targets)] // appends by callers must copy
		for _, w := range r.words {
			key := string(normalize(nil, w))
			words := strings.Fields(key)
			if len(words) == 0 || len(words) > 255 {
				panic("hl7: unusable mapping phrase " + w)
			}
			s := m.insert(key)
			if s.isPhrase {
				m.dups = append(m.dups, key)
			}
			s.isPhrase, s.targets = true, targets
			for _, x := range words {
				m.insert(x)
			}
			first := m.insert(words[0])
			first.longest = max(first.longest, uint8(len(words)))
		}
	}
	return m
}

func (m *matcher[T]) insert(key string) *slot[T] {
	h := fnv(fnvOffset, []byte(key))
	for i := h & m.mask; ; i = (i + 1) & m.mask {
		s := &m.slots[i]
		if !s.used {
			*s = slot[T]{key: key, hash: h, used: true}
			return s
		}
		if s.hash == h && s.key == key {
			return s
		}
	}
}

// lookup returns the slot index holding key, or -1.
func (m *matcher[T]) lookup(h uint64, key []byte) int32 {
	for i := h & m.mask; ; i = (i + 1) & m.mask {
		s := &m.slots[i]
		if !s.used {
			return -1
		}
		if s.hash == h && s.key == string(key) {
			return int32(i)
		}
	}
}

// find records every phrase of s in h.
//
// One pass normalises s (see normalize) while hashing both the whole text and
// each word. The whole text is looked up first: most codes and texts in real
// feeds are one table phrase ("NPO", "Regular Diet", "Peanut"), and a single
// probe of the precomputed table answers them before any word-by-word matching.
func (m *matcher[T]) find(s string, h *hits[T]) {
	// buf is larger than matchText+1 so that indexing it with n&0xff needs no
	// bounds check; n stays below matchText+2.
	var buf [256]byte
	type word struct {
		from, to uint8 // matchText < 256
		slot     int32 // index into m.slots, -1 when unknown
		hash     uint64
	}
	var words [matchWords]word
	n, nw, from := 0, 0, 0
	full, wh := uint64(fnvOffset), uint64(fnvOffset)
	prev := byte(classOther)
	for i := 0; i < len(s) && n < matchText; i++ {
		c := s[i]
		kind := charClass[c]
		if kind == classOther {
			prev = classOther
			continue
		}
		if kind == classSkip {
			continue
		}
		if kind != prev { // a word starts; normalize puts a space before it
			if n > 0 {
				words[nw] = word{from: uint8(from), to: uint8(n), hash: wh}
				if nw++; nw == matchWords { // later words are never matched
					break
				}
				buf[n&0xff] = ' '
				n++
				full = (full ^ ' ') * fnvPrime
			}
			from, wh = n, fnvOffset
		}
		c |= 0x20 // lower-cases letters, leaves digits alone
		buf[n&0xff] = c
		n++
		full = (full ^ uint64(c)) * fnvPrime
		wh = (wh ^ uint64(c)) * fnvPrime
		prev = kind
	}
	if n == 0 {
		return
	}
	if nw < matchWords {
		words[nw] = word{from: uint8(from), to: uint8(n), hash: wh}
		nw++
	}
	norm := buf[:n]
	if si := m.lookup(full, norm); si >= 0 && m.slots[si].isPhrase {
		h.add(m.slots[si].targets)
		return
	}

	// Look each word up, folding plurals the table knows only in the singular
	// (in place: words only get shorter, so later words move left once one is
	// folded).
	out, folded := 0, false
	for i := 0; i < nw; i++ {
		wd := &words[i]
		w := norm[wd.from:wd.to]
		sl := m.lookup(wd.hash, w)
		if sl < 0 && len(w) > 3 && w[len(w)-1] == 's' {
			if sl = m.lookup(fnv(fnvOffset, w[:len(w)-1]), w[:len(w)-1]); sl >= 0 {
				w, folded = w[:len(w)-1], true
			} else if len(w) > 4 && w[len(w)-2] == 'e' {
				if sl = m.lookup(fnv(fnvOffset, w[:len(w)-2]), w[:len(w)-2]); sl >= 0 {
					w, folded = w[:len(w)-2], true
				}
			}
		}
		wd.slot = sl
		if folded {
			if out > 0 {
				norm[out] = ' '
				out++
			}
			wd.from = uint8(out)
			out += copy(norm[out:], w)
			wd.to = uint8(out)
		} else {
			out = int(wd.to)
		}
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
