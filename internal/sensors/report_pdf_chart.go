package sensors

import (
	"math"
	"strconv"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/sous-app/sous/gen/api"
)

// The chart above each sensor's table in the PDF log: its readings against the sensor's range.
// A quarter at 5 minutes is 26,496 buckets a sensor, far more than the chart has room for, so
// the buckets are gathered per pixel column (a point, 1/72 inch, of the plot's width): each
// column keeps the lowest minimum, the highest maximum and the mean of its buckets, so a spike
// out of range stays visible however many readings share its column, and the chart is at most
// a few thousand path points whatever the period.
//
// Drawn, bottom to top: the range band (green), each out-of-range stretch shaded red over the
// plot's height, the grid and the limits (dashed, so they survive a photocopy), the readings'
// minimum–maximum envelope (blue, and red where it leaves the band), the mean as a line.

const (
	chartHeightMM = 36.0                  // the plot
	chartAxisMM   = 12.0                  // left of the plot: the degrees
	chartLimitsMM = 10.0                  // right of the plot: the limits
	chartBlockMM  = 4 + chartHeightMM + 9 // legend above, times and their title below
)

// Fill colours of the chart and the table (PDF "r g b"), each also recognised by the tests.
const (
	colourBand      = "0.84 0.93 0.84"
	colourStretch   = "1 0.86 0.86"
	colourEnvelope  = "0.62 0.74 0.9"
	colourOutOfBand = "0.85 0.1 0.1"
	colourMean      = "0.1 0.23 0.5"
	colourCell      = "1 0.82 0.82" // an out-of-range cell of the table
)

// Which of a bucket's values are outside the sensor's range.
const (
	outMin uint8 = 1 << iota
	outMean
	outMax
)

// limits is a sensor's range in °F; a side without a limit is infinite.
type limits struct{ lo, hi float64 }

func limitsOf(s api.TemperatureLogSensor) (limits, bool) {
	l := limits{math.Inf(-1), math.Inf(1)}
	if s.MinTempF != nil {
		if v, err := strconv.ParseFloat(*s.MinTempF, 64); err == nil {
			l.lo = v
		}
	}
	if s.MaxTempF != nil {
		if v, err := strconv.ParseFloat(*s.MaxTempF, 64); err == nil {
			l.hi = v
		}
	}
	return l, !math.IsInf(l.lo, -1) || !math.IsInf(l.hi, 1)
}

// out is whether v (°F) is outside the range: below its minimum or above its maximum, the
// limits themselves in range, as readings are judged.
func (l limits) out(v float64) bool { return v < l.lo || v > l.hi }

// column is one pixel column of the chart: the buckets starting in it, consecutive with no
// missing bucket between them.
type column struct {
	x0, x1       float64 // mm: the first bucket's start, the last one's end
	lo, hi, mean float64 // °F
	out          bool    // some reading of the column is out of range
	gap          bool    // buckets are missing between the previous column and this one
}

// chartData is what the chart draws, worked out before any drawing so tests can check it.
type chartData struct {
	columns []column
	flags   []uint8 // per bucket, which values are out of range (nil when the sensor has no range)
	lo, hi  float64 // the plot's degrees, bottom and top
}

// gather parses the buckets into at most n columns over the plot from x (mm) of width w, for
// the period start..end; flags marks each bucket's out-of-range values when the sensor has a range.
func gather(buckets []api.SensorLogBucket, width time.Duration, start, end time.Time, x, w float64, n int, l limits, ranged bool) chartData {
	d := chartData{lo: math.Inf(1), hi: math.Inf(-1)}
	if ranged {
		d.flags = make([]uint8, len(buckets))
	}
	span := float64(end.Sub(start))
	at := func(t time.Time) float64 { return x + w*min(max(float64(t.Sub(start))/span, 0), 1) }
	current, weight := -1, 0.0
	var prevEnd time.Time
	for i, b := range buckets {
		lo, err1 := strconv.ParseFloat(b.Min, 64)
		mean, err2 := strconv.ParseFloat(b.Mean, 64)
		hi, err3 := strconv.ParseFloat(b.Max, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		var f uint8
		if ranged {
			if l.out(lo) {
				f |= outMin
			}
			if l.out(mean) {
				f |= outMean
			}
			if l.out(hi) {
				f |= outMax
			}
			d.flags[i] = f
		}
		c := int(float64(b.At.Sub(start)) / span * float64(n))
		c = min(max(c, 0), n-1)
		gap := len(d.columns) > 0 && b.At.After(prevEnd)
		if c != current || gap {
			d.columns = append(d.columns, column{x0: at(b.At), lo: lo, hi: hi, gap: gap})
			current, weight = c, 0
		}
		col := &d.columns[len(d.columns)-1]
		col.lo, col.hi = min(col.lo, lo), max(col.hi, hi)
		// The column's mean weighs each bucket by its readings.
		nw := float64(max(b.Count, 1))
		col.mean = (col.mean*weight + mean*nw) / (weight + nw)
		weight += nw
		col.out = col.out || f != 0
		prevEnd = b.At.Add(width)
		col.x1 = at(prevEnd)
		d.lo, d.hi = min(d.lo, lo), max(d.hi, hi)
	}
	if ranged {
		if !math.IsInf(l.lo, -1) {
			d.lo = min(d.lo, l.lo)
		}
		if !math.IsInf(l.hi, 1) {
			d.hi = max(d.hi, l.hi)
		}
	}
	// A margin above and below, at least a degree, so a flat line is not drawn on the frame.
	pad := max((d.hi-d.lo)*0.08, 1)
	d.lo, d.hi = d.lo-pad, d.hi+pad
	return d
}

// stretches are the runs of consecutive out-of-range columns, as [from, to) indexes.
func (d chartData) stretches() [][2]int {
	var runs [][2]int
	for i := 0; i < len(d.columns); i++ {
		if !d.columns[i].out {
			continue
		}
		j := i + 1
		for j < len(d.columns) && d.columns[j].out && !d.columns[j].gap {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j - 1
	}
	return runs
}

// chart draws the readings of s over the period in a block chartBlockMM high from the current
// position, and returns the buckets' out-of-range flags for the table under it.
func chart(pdf *fpdf.Fpdf, tr func(string) string, s api.TemperatureLogSensor, log api.TemperatureLog, width time.Duration, loc *time.Location) []uint8 {
	k := pdf.GetConversionRatio()
	left, _, right, _ := pdf.GetMargins()
	pageW, pageH := pdf.GetPageSize()
	top := pdf.GetY()
	px, pw := left+chartAxisMM, pageW-right-left-chartAxisMM-chartLimitsMM
	py := top + 4 // the legend's line above
	l, ranged := limitsOf(s)
	d := gather(s.Buckets, width, log.PeriodStart, log.PeriodEnd, px, pw, int(pw*k), l, ranged)
	yOf := func(v float64) float64 { return py + chartHeightMM*(d.hi-min(max(v, d.lo), d.hi))/(d.hi-d.lo) }

	legend(pdf, tr, left, top, s, ranged)

	o := &ops{k: k, pageH: pageH, b: make([]byte, 0, 32*1024)}
	o.raw("q\n")
	if ranged {
		o.raw(colourBand + " rg\n")
		o.rect(px, yOf(l.hi), px+pw, yOf(l.lo))
		o.raw("f\n")
	}
	if runs := d.stretches(); len(runs) > 0 {
		o.raw(colourStretch + " rg\n")
		for _, r := range runs {
			x0, x1 := d.columns[r[0]].x0, d.columns[r[1]-1].x1
			if x1-x0 < 0.6 { // a column is a third of a millimetre: a lone one is shaded wider
				x0, x1 = (x0+x1)/2-0.3, (x0+x1)/2+0.3
			}
			o.rect(x0, py, x1, py+chartHeightMM)
		}
		o.raw("f\n")
	}
	// Grid: the degrees' ticks and the times' ticks, thin and light.
	yTicks, decimals := niceTicks(d.lo, d.hi)
	xTicks := timeTicks(log.PeriodStart, log.PeriodEnd, loc)
	xOf := func(t time.Time) float64 {
		return px + pw*float64(t.Sub(log.PeriodStart))/float64(log.PeriodEnd.Sub(log.PeriodStart))
	}
	o.raw("0.82 G 0.3 w\n")
	for _, v := range yTicks {
		o.point(px, yOf(v), "m")
		o.point(px+pw, yOf(v), "l")
	}
	for _, t := range xTicks {
		o.point(xOf(t.at), py, "m")
		o.point(xOf(t.at), py+chartHeightMM, "l")
	}
	o.raw("S\n")
	// The envelope, once as a path kept to be filled three times.
	path := envelope(&ops{k: k, pageH: pageH}, d.columns, yOf)
	o.raw(colourEnvelope + " rg\n")
	o.b = append(o.b, path...)
	o.raw("f\n")
	if ranged {
		// Where the envelope leaves the band it is red: the same path, clipped above the
		// maximum and below the minimum.
		for _, side := range [][2]float64{{py, yOf(l.hi)}, {yOf(l.lo), py + chartHeightMM}} {
			if side[1]-side[0] <= 0 {
				continue
			}
			o.raw("q\n")
			o.rect(px, side[0], px+pw, side[1])
			o.raw("W n\n" + colourOutOfBand + " rg\n")
			o.b = append(o.b, path...)
			o.raw("f\nQ\n")
		}
		// The limits, dashed and dark.
		o.raw("0.25 0.45 0.25 RG 0.8 w [3 2] 0 d\n")
		for _, v := range []float64{l.lo, l.hi} {
			if !math.IsInf(v, 0) {
				o.point(px, yOf(v), "m")
				o.point(px+pw, yOf(v), "l")
			}
		}
		o.raw("S [] 0 d\n")
	}
	// The mean, a line through the columns' middles, broken where buckets are missing.
	o.raw(colourMean + " RG 0.7 w 1 j\n")
	for i, c := range d.columns {
		op := "l"
		if i == 0 || c.gap {
			op = "m"
		}
		o.point((c.x0+c.x1)/2, yOf(c.mean), op)
	}
	if len(d.columns) > 0 {
		o.raw("S\n")
	}
	o.raw("0.45 G 0.5 w\n")
	o.rect(px, py, px+pw, py+chartHeightMM)
	o.raw("S\nQ\n")
	pdf.RawWriteStr(string(o.b))

	// Labels: degrees on the left, local times under the plot.
	pdf.SetFont("Helvetica", "", 6)
	for _, v := range yTicks {
		s := strconv.FormatFloat(v, 'f', decimals, 64)
		pdf.Text(px-1-pdf.GetStringWidth(s), yOf(v)+0.8, s)
	}
	pdf.Text(left, py-0.8, tr("°F"))
	if ranged {
		pdf.SetTextColor(51, 102, 51)
		for _, lim := range []struct {
			name string
			v    float64
			text *string
		}{{"max ", l.hi, s.MaxTempF}, {"min ", l.lo, s.MinTempF}} {
			if !math.IsInf(lim.v, 0) {
				pdf.Text(px+pw+1, yOf(lim.v)+0.8, lim.name+*lim.text)
			}
		}
		pdf.SetTextColor(0, 0, 0)
	}
	for _, t := range xTicks {
		x := xOf(t.at) - pdf.GetStringWidth(t.label)/2
		pdf.Text(min(max(x, px), px+pw-pdf.GetStringWidth(t.label)), py+chartHeightMM+3, t.label)
	}
	axis := tr("Local time (" + log.Site.Timezone + ")")
	pdf.Text(px+pw-pdf.GetStringWidth(axis), py+chartHeightMM+6.5, axis)
	pdf.SetY(top + chartBlockMM)
	return d.flags
}

// envelope writes the columns' minimum–maximum area as closed paths, one per run of columns
// without missing buckets: along the maxima forward, back along the minima. A column over
// two pixel columns wide (buckets sparser than the plot's resolution) is drawn as a step over
// its buckets' time; a narrower one as a point at its middle.
func envelope(o *ops, cols []column, yOf func(float64) float64) []byte {
	wide := func(c column) bool { return (c.x1-c.x0)*o.k >= 2 }
	for i := 0; i < len(cols); {
		j := i + 1
		for j < len(cols) && !cols[j].gap {
			j++
		}
		op := "m"
		for _, c := range cols[i:j] {
			if wide(c) {
				o.point(c.x0, yOf(c.hi), op)
				o.point(c.x1, yOf(c.hi), "l")
			} else {
				o.point((c.x0+c.x1)/2, yOf(c.hi), op)
			}
			op = "l"
		}
		for n := j - 1; n >= i; n-- {
			c := cols[n]
			if wide(c) {
				o.point(c.x1, yOf(c.lo), "l")
				o.point(c.x0, yOf(c.lo), "l")
			} else {
				o.point((c.x0+c.x1)/2, yOf(c.lo), "l")
			}
		}
		o.raw("h\n")
		i = j
	}
	return o.b
}

// ops is a content stream being written, in millimetres from the page's top left (fpdf's
// units) turned into PDF points from its bottom left.
type ops struct {
	k, pageH float64
	b        []byte
}

func (o *ops) raw(s string) { o.b = append(o.b, s...) }

func (o *ops) num(v float64) {
	o.b = strconv.AppendFloat(o.b, v, 'f', 2, 64)
	o.b = append(o.b, ' ')
}

// point writes x y and the operator (m, l).
func (o *ops) point(x, y float64, op string) {
	o.num(x * o.k)
	o.num((o.pageH - y) * o.k)
	o.b = append(o.b, op...)
	o.b = append(o.b, '\n')
}

// rect writes the rectangle x0,y0 (top left) to x1,y1 (bottom right).
func (o *ops) rect(x0, y0, x1, y1 float64) {
	o.num(x0 * o.k)
	o.num((o.pageH - y1) * o.k)
	o.num((x1 - x0) * o.k)
	o.num((y1 - y0) * o.k)
	o.raw("re\n")
}

// legend writes the chart's key on one line at y: the band, the envelope, the red.
func legend(pdf *fpdf.Fpdf, tr func(string) string, x, y float64, s api.TemperatureLogSensor, ranged bool) {
	pdf.SetFont("Helvetica", "", 6.5)
	pdf.SetXY(x+chartAxisMM, y)
	swatch := func(r, g, bl int, text string) {
		sx, sy := pdf.GetXY()
		pdf.SetFillColor(r, g, bl)
		pdf.Rect(sx, sy+0.9, 3, 2, "F")
		pdf.SetX(sx + 4)
		pdf.CellFormat(pdf.GetStringWidth(tr(text))+3, 3.8, tr(text), "", 0, "L", false, 0, "")
	}
	if ranged {
		swatch(214, 237, 214, "acceptable "+rangeText(s.MinTempF, s.MaxTempF))
	}
	swatch(158, 189, 230, "readings, lowest to highest")
	swatch(26, 59, 128, "mean")
	if ranged {
		swatch(217, 26, 26, "out of range (shaded over its time)")
	}
	// Back to black: the tables' rows are written straight into the page and take the fill colour.
	pdf.SetFillColor(0, 0, 0)
}

// niceTicks are about seven round values between lo and hi, and the decimals to write them with.
func niceTicks(lo, hi float64) ([]float64, int) {
	raw := (hi - lo) / 7
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(step/math.Pow(10, -float64(decimals))-math.Round(step/math.Pow(10, -float64(decimals)))) > 1e-9 {
		decimals++ // 2.5, 0.25
	}
	var ticks []float64
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ticks = append(ticks, math.Round(v/step)*step)
	}
	return ticks, decimals
}

type timeTick struct {
	at    time.Time
	label string
}

// timeTicks are at most 8 local times over start..end on round hours or days: "03:00" within a
// day ("Mar 2" at midnight), "Mar 2" over days.
func timeTicks(start, end time.Time, loc *time.Location) []timeTick {
	local := start.In(loc)
	y, m, d := local.Date()
	span := end.Sub(start)
	var ticks []timeTick
	for _, hours := range []int{1, 2, 3, 6, 12, 24, 48, 72, 24 * 7, 24 * 14, 24 * 28} {
		if span/(time.Duration(hours)*time.Hour) > 8 {
			continue
		}
		for i := 0; ; i++ {
			var t time.Time
			if hours < 24 {
				t = time.Date(y, m, d, i*hours, 0, 0, 0, loc)
			} else {
				t = time.Date(y, m, d+i*hours/24, 0, 0, 0, 0, loc)
			}
			if !t.Before(end) {
				break
			}
			label := t.Format("Jan 2")
			if hours < 24 && (t.Hour() != 0 || t.Minute() != 0) {
				label = t.Format("15:04")
			}
			ticks = append(ticks, timeTick{t, label})
		}
		break
	}
	return ticks
}
