package hl7

import (
	"testing"
	"unicode/utf8"
)

var stdEnc = Encoding{Field: '|', Component: '^', Repetition: '~', Escape: '\\', SubComponent: '&'}

func TestDecode(t *testing.T) {
	v27 := stdEnc
	v27.Truncation = '#'
	own := Encoding{Field: '!', Component: '@', Repetition: '#', Escape: '$', SubComponent: '%'}
	short := Encoding{Field: '|', Component: '^', Repetition: '~'}
	tests := []struct {
		name string
		enc  Encoding
		in   string
		want string
	}{
		{"plain", stdEnc, "SMITH", "SMITH"},
		{"field", stdEnc, `A\F\B`, "A|B"},
		{"component", stdEnc, `A\S\B`, "A^B"},
		{"subcomponent", stdEnc, `JOHNSON \T\ JOHNSON`, "JOHNSON & JOHNSON"},
		{"repetition", stdEnc, `A\R\B`, "A~B"},
		{"escape", stdEnc, `C:\E\TEMP`, `C:\TEMP`},
		{"all in a row", stdEnc, `\F\\S\\T\\R\\E\`, `|^&~\`},
		{"truncation in v2.7", v27, `NUMBER\P\1`, "NUMBER#1"},
		{"truncation undeclared", stdEnc, `NUMBER\P\1`, `NUMBER\P\1`},
		{"hex UTF-8", stdEnc, `MU\XC391\OZ`, "MUÑOZ"},
		{"hex lower case", stdEnc, `\Xc3a9\`, "é"},
		{"hex Latin-1 byte", stdEnc, `JOS\XC9\`, "JOSÉ"},
		{"hex CRLF", stdEnc, `LINE1\X0D0A\LINE2`, "LINE1\r\nLINE2"},
		{"hex NUL dropped", stdEnc, `A\X00\B`, "AB"},
		{"hex odd length", stdEnc, `\X0\`, `\X0\`},
		{"hex not hex", stdEnc, `\XZZ\`, `\XZZ\`},
		{"hex empty", stdEnc, `\X\`, `\X\`},
		{"line break", stdEnc, `Cut meat small\.br\No straws`, "Cut meat small\nNo straws"},
		{"line break upper", stdEnc, `A\.BR\B`, "A\nB"},
		{"skip lines", stdEnc, `A\.sp 5\B`, "A\nB"},
		{"highlight", stdEnc, `\H\IMPORTANT\N\ note`, "IMPORTANT note"},
		{"charset switch kept", stdEnc, `\C2842\ABC\C2842\`, `\C2842\ABC\C2842\`},
		{"local escape kept", stdEnc, `\Zfoo\`, `\Zfoo\`},
		{"formatting command kept", stdEnc, `\.in+4\text`, `\.in+4\text`},
		{"unterminated", stdEnc, `50\50 chance`, `50\50 chance`},
		{"trailing escape", stdEnc, `ABC\`, `ABC\`},
		{"stray escape before a real one", stdEnc, `50\50 chance \T\ more`, `50\50 chance & more`},
		{"windows path", stdEnc, `C:\temp\new`, `C:\temp\new`},
		{"adjacent escapes", stdEnc, `A\\B`, `A\\B`},
		{"own escape character", own, `A$F$B$S$C$T$D$R$E$E$`, "A!B@C%D#E$"},
		{"no escape declared", short, `A\F\B`, `A\F\B`},
		{"windows-1252 quotes", stdEnc, "\x93quoted\x94 it\x92s", "\u201cquoted\u201d it\u2019s"},
		{"latin-1 name", stdEnc, "M\xdcLLER", "MÜLLER"},
		{"undefined cp1252 byte", stdEnc, "A\x81B", "A\uFFFDB"},
		{"NUL dropped", stdEnc, "A\x00B", "AB"},
		{"valid UTF-8 kept", stdEnc, "Zoë 日本", "Zoë 日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decode(tt.in, &tt.enc)
			if got != tt.want {
				t.Errorf("decode(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) || len(got) > MaxValueExpansion*len(tt.in) {
				t.Errorf("decode(%q) = %q breaks the output guarantees", tt.in, got)
			}
		})
	}
}

func TestDecodePlainDoesNotAllocate(t *testing.T) {
	in := "DOE^JANE^QUINN"
	allocs := testing.AllocsPerRun(100, func() {
		if decode(in, &stdEnc) != in {
			t.Fatal("changed")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations for text without escapes", allocs)
	}
}

func TestDecodeIsBounded(t *testing.T) {
	worst := string(make([]byte, 0)) // built below
	for range 1000 {
		worst += "\x80"
	}
	if got := decode(worst, &stdEnc); len(got) != 3*len(worst) {
		t.Errorf("%d bytes from %d", len(got), len(worst))
	}
}
