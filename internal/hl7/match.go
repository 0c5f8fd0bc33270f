package hl7

// MatchStatus is the outcome of mapping one coded value.
type MatchStatus string

const (
	// StatusMapped: at least one vocabulary term was recognised.
	StatusMapped MatchStatus = "mapped"
	// StatusUnmapped: nothing recognised; a human has to review the
	// original code and text.
	StatusUnmapped MatchStatus = "unmapped"
	// StatusNotApplicable: the value is kept but is outside the vocabulary
	// by nature, e.g. a drug allergy.
	StatusNotApplicable MatchStatus = "not_applicable"
	// StatusNoneKnown: the sender stated there is nothing to record, e.g.
	// "NKA" (no known allergies).
	StatusNoneKnown MatchStatus = "none_known"
)

// MatchSource says which part of a coded value produced a match.
type MatchSource string

const (
	MatchedByCode     MatchSource = "code"      // a standard code (SNOMED CT) in the identifier
	MatchedByMnemonic MatchSource = "mnemonic"  // the identifier read as words, e.g. "CL LIQ"
	MatchedByText     MatchSource = "text"      // the text component
	MatchedByBoth     MatchSource = "code_text" // identifier and text
)

// matchText and matchWords bound the normalised text a matcher reads. Codes
// and their display text are short; longer free text is read up to here
// only, which keeps the working buffers small and on the stack.
const (
	matchText  = 200 // < 256: word offsets are bytes
	matchWords = 40
)

// normalize appends the lower-case word form of s to dst: ASCII letters and
// digits, letter/digit boundaries split, apostrophes dropped ("cow's" is
// "cows"), everything else a single space. At most matchText bytes.
func normalize(dst []byte, s string) []byte {
	prev := byte(classOther)
	for i := 0; i < len(s) && len(dst) < matchText; i++ {
		c := s[i]
		kind := charClass[c]
		switch kind {
		case classOther:
			prev = classOther
			continue
		case classSkip:
			continue
		}
		if prev != kind && len(dst) > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, c|0x20) // lower-cases letters, leaves digits alone
		prev = kind
	}
	return dst
}

const (
	classOther = iota
	classLetter
	classDigit
	classSkip
)

var charClass = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = classLetter, classLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	t['\''] = classSkip
	return t
}()

// hits collects matched target lists without allocating for the usual one
// or two matches.
type hits[T comparable] struct {
	first      [4][]T
	n          int
	more       [][]T
	recognised bool // some phrase matched, even one without targets
}

func (h *hits[T]) add(ts []T) {
	h.recognised = true
	if len(ts) == 0 {
		return
	}
	if h.n < len(h.first) {
		h.first[h.n] = ts
		h.n++
		return
	}
	h.more = append(h.more, ts)
}

func (h *hits[T]) empty() bool { return h.n == 0 }

// result merges the hits, de-duplicated in order. A single distinct list is
// returned as the shared table slice (capacity-limited, so appending copies).
func (h *hits[T]) result() []T {
	if h.n == 0 {
		return nil
	}
	single := true
	for i := 1; i < h.n; i++ {
		if !sameSlice(h.first[i], h.first[0]) && !equalSlice(h.first[i], h.first[0]) {
			single = false
		}
	}
	if single && len(h.more) == 0 {
		return h.first[0]
	}
	var out []T
	add := func(ts []T) {
		for _, t := range ts {
			dup := false
			for _, o := range out {
				if o == t {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, t)
			}
		}
	}
	for i := 0; i < h.n; i++ {
		add(h.first[i])
	}
	for _, ts := range h.more {
		add(ts)
	}
	return out
}

// equalSlice compares contents: a code and its text often map to equal lists
// from different tables (a SNOMED code and the word "peanut").
func equalSlice[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// hasLetter tells a mnemonic such as "CL LIQ" from a numeric code, which is
// only looked up as a code.
func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}
