package sensors

import (
	"strconv"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/sous-app/sous/gen/api"
)

// The reading buckets of the PDF log are set in three columns of fixed-width rows
// ("2026-01-15 14:05   37.1  38.45   40.9     5"), each column one text object of the page
// written straight into its content stream. A cell per value drawn by fpdf (measuring,
// formatting floats, a bordered rectangle each) made a quarter at 5 minutes for 7 sensors
// (185,472 buckets) 3,400 pages and 6.6 s of CPU; the rows below make it a sixth of the pages
// and most of the work the per-page compression.
const (
	bucketFont     = 6.5 // pt, Courier: every character 0.6 em wide, so columns align by spaces
	bucketLeading  = 8.0 // pt between rows
	bucketColumns3 = 3
	bucketGapMM    = 5.0
)

// bucketHeader names the fields of a row, in appendBucketRow's widths.
var bucketHeader = string(appendRight(appendRight(appendRight(appendRight([]byte("From (local)    "), "Min", 7), "Mean", 7), "Max", 7), "N", 6))

// Where a row's values sit, in characters from its start (bucketHeader's widths): each ends its field.
var valueEnds = [3]int{16 + 7, 16 + 14, 16 + 21}

// bucketColumns writes buckets from the current position, filling each column down to the page's
// bottom margin before the next and starting pages as needed; the last page's rows are spread
// evenly over the columns. It leaves the position under the tallest column.
//
// flags (one per bucket, or nil) marks the values out of the sensor's range: such a value is left
// blank in its row and written over a red ground in bold (Courier-Bold has Courier's widths, so
// it sits in the row's place), which a photocopy keeps. Rows in range cost what they did.
func bucketColumns(pdf *fpdf.Fpdf, buckets []api.SensorLogBucket, flags []uint8, loc *time.Location) {
	k := pdf.GetConversionRatio() // points per mm
	left, _, right, _ := pdf.GetMargins()
	pageW, pageH := pdf.GetPageSize()
	_, bottom := pdf.GetAutoPageBreak()
	colW := (pageW - left - right - bucketGapMM*(bucketColumns3-1)) / bucketColumns3
	lead := bucketLeading / k // mm
	row := make([]byte, 0, 64)
	text := make([]byte, 0, 64*1024)
	charW := 0.6 * bucketFont // pt
	type marked struct {
		x, y  float64 // pt, the value's baseline start
		value string
	}
	var marks []marked
	for len(buckets) > 0 {
		y := pdf.GetY()
		perColumn := int((pageH - bottom - y - lead) / lead) // rows under the header
		if perColumn < 4 {
			pdf.AddPage()
			continue
		}
		onPage := min(len(buckets), perColumn*bucketColumns3)
		n := perColumn
		if onPage < perColumn*bucketColumns3 {
			n = (onPage + bucketColumns3 - 1) / bucketColumns3
		}
		rows := 0
		for c := 0; c < bucketColumns3 && onPage > 0; c++ {
			take := min(n, onPage)
			x := left + float64(c)*(colW+bucketGapMM)
			// Header in bold Courier, rows in Courier: fonts are set through fpdf so that the
			// document lists them; the text objects below inherit the font of the text state.
			pdf.SetFont("Courier", "B", bucketFont)
			text = appendTextObject(text[:0], x*k, (pageH-y)*k-bucketFont, []string{bucketHeader})
			pdf.RawWriteStr(string(text))
			pdf.SetFont("Courier", "", bucketFont)
			text = text[:0]
			text = append(text, "BT\n"...)
			text = strconv.AppendFloat(text, bucketLeading, 'f', 2, 64)
			text = append(text, " TL\n"...)
			text = strconv.AppendFloat(text, x*k, 'f', 2, 64)
			text = append(text, ' ')
			text = strconv.AppendFloat(text, (pageH-y-lead)*k-bucketFont, 'f', 2, 64)
			text = append(text, " Td\n"...)
			marks = marks[:0]
			for i, b := range buckets[:take] {
				row = appendBucketRow(row[:0], b, loc)
				if flags != nil && flags[i] != 0 {
					baseline := (pageH-y-lead)*k - bucketFont - float64(i)*bucketLeading
					for v, value := range [3]string{b.Min, b.Mean, b.Max} {
						if flags[i]&(1<<v) == 0 {
							continue
						}
						from := valueEnds[v] - len(value)
						for c := max(from, 0); c < valueEnds[v]; c++ {
							row[c] = ' '
						}
						marks = append(marks, marked{x*k + float64(from)*charW, baseline, value})
					}
				}
				text = append(text, '(')
				text = append(text, row...)
				if i == 0 {
					text = append(text, ") Tj\n"...)
				} else {
					text = append(text, ") '\n"...)
				}
			}
			text = append(text, "ET\n"...)
			pdf.RawWriteStr(string(text))
			if len(marks) > 0 {
				// The grounds, then the values in bold over them.
				text = append(text[:0], "q "+colourCell+" rg\n"...)
				for _, m := range marks {
					text = strconv.AppendFloat(text, m.x-0.6, 'f', 2, 64)
					text = append(text, ' ')
					text = strconv.AppendFloat(text, m.y-2, 'f', 2, 64)
					text = append(text, ' ')
					text = strconv.AppendFloat(text, float64(len(m.value))*charW+1.2, 'f', 2, 64)
					text = append(text, ' ')
					text = strconv.AppendFloat(text, bucketLeading, 'f', 2, 64)
					text = append(text, " re\n"...)
				}
				text = append(text, "f Q\n"...)
				pdf.RawWriteStr(string(text))
				pdf.SetFont("Courier", "B", bucketFont)
				text = append(text[:0], "BT\n"...)
				for _, m := range marks {
					text = append(text, "1 0 0 1 "...)
					text = strconv.AppendFloat(text, m.x, 'f', 2, 64)
					text = append(text, ' ')
					text = strconv.AppendFloat(text, m.y, 'f', 2, 64)
					text = append(text, " Tm ("...)
					text = append(text, m.value...)
					text = append(text, ") Tj\n"...)
				}
				text = append(text, "ET\n"...)
				pdf.RawWriteStr(string(text))
			}
			if flags != nil {
				flags = flags[take:]
			}
			buckets, onPage = buckets[take:], onPage-take
			rows = max(rows, take)
		}
		pdf.SetY(y + lead*float64(rows+1) + 1)
		if len(buckets) > 0 {
			pdf.AddPage()
		}
	}
	pdf.SetFont("Helvetica", "", 9)
}

// appendTextObject appends a text object showing lines from (x, y) in points.
func appendTextObject(b []byte, x, y float64, lines []string) []byte {
	b = append(b, "BT\n"...)
	b = strconv.AppendFloat(b, x, 'f', 2, 64)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, y, 'f', 2, 64)
	b = append(b, " Td\n"...)
	for _, l := range lines {
		b = append(b, '(')
		b = append(b, l...)
		b = append(b, ") Tj\n"...)
	}
	return append(b, "ET\n"...)
}

// appendBucketRow appends one bucket as a row of bucketHeader's widths: the local start, then
// min, mean and max right-aligned in 7 characters and the count in 6. Values are decimal strings
// of digits, '-' and '.', which need no escaping in a PDF string.
func appendBucketRow(b []byte, bk api.SensorLogBucket, loc *time.Location) []byte {
	b = bk.At.In(loc).AppendFormat(b, "2006-01-02 15:04")
	b = appendRight(b, bk.Min, 7)
	b = appendRight(b, bk.Mean, 7)
	b = appendRight(b, bk.Max, 7)
	var n [20]byte
	return appendRight(b, string(strconv.AppendInt(n[:0], int64(bk.Count), 10)), 6)
}

func appendRight(b []byte, s string, width int) []byte {
	for i := len(s); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}
