// Package csvout writes the CSV files the server hands out, so that no cell a spreadsheet opens
// is read as a formula (CSV injection, OWASP): every CSV the server writes goes through Writer.
package csvout

import (
	"encoding/csv"
	"io"
	"regexp"
	"strings"
)

// formulaStarts are the first characters that make Excel, LibreOffice or Google Sheets read a
// cell as a formula (or, tab and line breaks, hide one after a separator).
const formulaStarts = "=+-@\t\r\n"

// Cell is one cell, made by Text or Number: a row takes nothing else, so no string reaches a
// file without being looked at.
type Cell struct{ s string }

// Text is a cell of text, user-supplied or not: one that starts like a formula is written with a
// single quote in front (OWASP's advice), which spreadsheets show as text and do not evaluate.
func Text(s string) Cell {
	if s != "" && strings.ContainsRune(formulaStarts, rune(s[0])) {
		return Cell{"'" + s}
	}
	return Cell{s}
}

// plainNumber is a decimal number as the server formats one ("-2.5", "42.50"): nothing a
// spreadsheet evaluates beyond the number itself.
var plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// Number is a cell the server formatted as a number: kept as it is, so a negative quantity
// stays a number in the sheet. Anything that is not a plain decimal is written as Text.
func Number(s string) Cell {
	if plainNumber.MatchString(s) {
		return Cell{s}
	}
	return Text(s)
}

// Writer writes rows of cells made safe by Text or Number, with CRLF line ends (RFC 4180).
type Writer struct{ w *csv.Writer }

func NewWriter(w io.Writer) *Writer {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	return &Writer{w: cw}
}

// Row writes one row; the error is the underlying writer's, reported by Flush as well.
func (w *Writer) Row(cells ...Cell) error {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = c.s
	}
	return w.w.Write(row)
}

// Flush writes any buffered rows and reports the first write error.
func (w *Writer) Flush() error {
	w.w.Flush()
	return w.w.Error()
}
