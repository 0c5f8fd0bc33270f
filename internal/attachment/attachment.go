// Package attachment names the files the API answers for download (CSV and PDF documents): a
// Content-Disposition of `attachment` with a dated, ASCII-only file name, so a saved log, list or
// label sheet sorts by date in a folder and survives every mail client and file system.
package attachment

import (
	"strings"
	"time"
)

// Disposition is the Content-Disposition value for a download of what (words, e.g.
// "temperature log" or a recipe's name) over the dates from..to, with the extension ext:
// `attachment; filename="temperature-log-2026-11-01-to-2026-11-28.pdf"`, or a single date when
// from and to fall on the same day. Only the dates' calendar fields are read.
func Disposition(what string, from, to time.Time, ext string) string {
	return `attachment; filename="` + Name(what, from, to, ext) + `"`
}

// Name is the file name of Disposition: what as a slug, the date or dates, the extension.
func Name(what string, from, to time.Time, ext string) string {
	var b strings.Builder
	if s := Slug(what); s != "" {
		b.WriteString(s)
		b.WriteByte('-')
	}
	b.WriteString(from.Format(time.DateOnly))
	if to.Year() != from.Year() || to.YearDay() != from.YearDay() {
		b.WriteString("-to-")
		b.WriteString(to.Format(time.DateOnly))
	}
	if e := Slug(ext); e != "" {
		b.WriteByte('.')
		b.WriteString(e)
	}
	return b.String()
}

// maxSlug bounds the words of a name (a recipe's name is the user's text): the dates and the
// extension always fit in a name a file system keeps whole.
const maxSlug = 60

// Slug is s in lower-case ASCII letters and digits, every other run of characters one dash,
// accented Latin letters without their accents ("Crème brûlée" is "creme-brulee"), at most 60
// characters, no dash at either end. Quotes, slashes, control characters and the like never
// reach the header.
func Slug(s string) string {
	b := make([]byte, 0, len(s))
	dash := false
	for _, r := range s {
		var fold string
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			fold = string(r)
		case r >= 'A' && r <= 'Z':
			fold = string(r + 'a' - 'A')
		default:
			fold = latin[r]
		}
		if fold == "" {
			dash = len(b) > 0
			continue
		}
		if dash {
			b = append(b, '-')
			dash = false
		}
		b = append(b, fold...)
		if len(b) >= maxSlug {
			b = b[:maxSlug]
			break
		}
	}
	return strings.TrimRight(string(b), "-")
}

// latin folds the accented letters of Western European languages to ASCII.
var latin = func() map[rune]string {
	m := map[rune]string{'ß': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th"}
	for base, letters := range map[string]string{
		"a": "àáâãäåÀÁÂÃÄÅ", "c": "çÇ", "e": "èéêëÈÉÊË", "i": "ìíîïÌÍÎÏ", "n": "ñÑ", "o": "òóôõöÒÓÔÕÖ", "u": "ùúûüÙÚÛÜ", "y": "ýÿÝŸ",
	} {
		for _, r := range letters {
			m[r] = base
		}
	}
	return m
}()
