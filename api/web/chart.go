package web

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/projections"
)

// The rating chart of a profile page: the rating (the ordinal, mu − 3σ)
// after each rated game, drawn on the server as inline SVG, so the page
// needs no script. The x axis counts the rated games (games evenly
// spaced: a burst of games in one evening would crowd a time axis), the
// dates of the first and last are under it. The drawing scales with the
// page (viewBox), and its text stays readable at a phone's width because
// the box is small (400 units wide) and its text large for it.

// Chart geometry, in viewBox units. The left margin holds the y axis's
// title and its longest number, so it is measured per chart (see
// ratingChart); the sizes of text are those of a phone's width, where a
// unit is smallest and the text largest for it.
const (
	chartW, chartH   = 400, 250
	chartRight       = 14
	chartTop         = 14
	chartBottom      = 64
	chartTicksWanted = 4
	// chartTitleBand is the width of the rotated y axis title (its
	// baseline at chartTitleX); chartCharW the width of a character of
	// a tick label, at most; chartTickGap the room between a label and
	// the axis.
	chartTitleBand = 26
	chartTitleX    = 19
	chartCharW     = 11
	chartTickGap   = 9
	chartMinLeft   = 48
)

// niceStep is a round step (1, 2 or 5 times a power of ten) near span /
// ticks.
func niceStep(span float64, ticks int) float64 {
	raw := span / float64(ticks)
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

// tickText writes an axis value in the reader's format: whole numbers
// without decimals.
func tickText(l *i18n.Localizer, v, step float64) string {
	if step >= 1 {
		return l.Decimal(v, 0)
	}
	return l.Decimal(v, 1)
}

// f writes a coordinate.
func f(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// ratingChart draws the points of one rating, oldest first: a line
// through a point per rated game, with labelled axes. No points, no
// chart.
func ratingChart(l *i18n.Localizer, title string, pts []projections.RatingPoint) template.HTML {
	if len(pts) == 0 {
		return ""
	}
	lo, hi := pts[0].Ordinal, pts[0].Ordinal
	for _, p := range pts {
		lo, hi = math.Min(lo, p.Ordinal), math.Max(hi, p.Ordinal)
	}
	if hi-lo < 2 {
		mid := (hi + lo) / 2
		lo, hi = mid-1, mid+1
	}
	step := niceStep(hi-lo, chartTicksWanted)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	// The y axis's labels, and the margin the longest of them needs:
	// "−12,5" is wider than "6", and no label may reach the axis.
	var ticks []float64
	var labels []string
	widest := 0
	for v := lo; v <= hi+step/2; v += step {
		ticks = append(ticks, v)
		labels = append(labels, tickText(l, v, step))
		widest = max(widest, utf8.RuneCountInString(labels[len(labels)-1]))
	}
	chartLeft := max(chartMinLeft, chartTitleBand+widest*chartCharW+chartTickGap)
	plotW, plotH := float64(chartW-chartLeft-chartRight), float64(chartH-chartTop-chartBottom)
	x := func(i int) float64 {
		if len(pts) == 1 {
			return float64(chartLeft) + plotW/2
		}
		return float64(chartLeft) + plotW*float64(i)/float64(len(pts)-1)
	}
	y := func(v float64) float64 { return chartTop + plotH*(hi-v)/(hi-lo) }

	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, `<svg class="rating-chart" viewBox="0 0 %d %d" role="img" aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">`, chartW, chartH)
	fmt.Fprintf(&b, `<title id="chart-title">%s</title>`, esc(l.T("profile.chart.title", "Board", title)))
	last := pts[len(pts)-1]
	fmt.Fprintf(&b, `<desc id="chart-desc">%s</desc>`, esc(l.N("profile.chart.desc", len(pts), "Rating", l.Decimal(last.Ordinal, 1))))
	// Horizontal grid lines with the rating at each.
	for i, v := range ticks {
		yy := y(v)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" y1="%s" x2="%d" y2="%s"/>`, chartLeft, f(yy), chartW-chartRight, f(yy))
		fmt.Fprintf(&b, `<text class="tick y" x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`, chartLeft-chartTickGap, f(yy), esc(labels[i]))
	}
	// The axes.
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, chartLeft, chartTop, chartLeft, chartH-chartBottom)
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, chartLeft, chartH-chartBottom, chartW-chartRight, chartH-chartBottom)
	// Game numbers under the x axis: the first, the last and round ones
	// between.
	xstep := int(math.Max(1, niceStep(float64(len(pts)-1), chartTicksWanted)))
	for i := 0; i < len(pts); i++ {
		n := i + 1
		if n != 1 && n != len(pts) && (n%xstep != 0 || len(pts)-n < xstep/2+1) {
			continue
		}
		fmt.Fprintf(&b, `<text class="tick x" x="%s" y="%d" text-anchor="middle">%s</text>`, f(x(i)), chartH-chartBottom+21, esc(l.Num(n)))
	}
	fmt.Fprintf(&b, `<text class="axis-title x" x="%s" y="%d" text-anchor="middle">%s</text>`, f(float64(chartLeft)+plotW/2), chartH-chartBottom+40,
		esc(l.T("profile.chart.x_axis")))
	fmt.Fprintf(&b, `<text class="axis-title dates" x="%s" y="%d" text-anchor="middle">%s</text>`, f(float64(chartLeft)+plotW/2), chartH-chartBottom+57,
		esc(l.T("profile.chart.dates", "From", l.Date(pts[0].FinishedAt), "To", l.Date(last.FinishedAt))))
	fmt.Fprintf(&b, `<text class="axis-title y" x="%d" y="%s" text-anchor="middle" transform="rotate(-90 %d %s)">%s</text>`,
		chartTitleX, f(chartTop+plotH/2), chartTitleX, f(chartTop+plotH/2), esc(l.T("profile.chart.y_axis")))
	// The line, then a point per game (on top, each with its own
	// tooltip).
	if len(pts) > 1 {
		b.WriteString(`<polyline class="line" points="`)
		for i, p := range pts {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(f(x(i)) + "," + f(y(p.Ordinal)))
		}
		b.WriteString(`"/>`)
	}
	r := 3.0
	if len(pts) > 60 {
		r = 1.8
	}
	for i, p := range pts {
		fmt.Fprintf(&b, `<circle class="pt" cx="%s" cy="%s" r="%s"><title>%s</title></circle>`, f(x(i)), f(y(p.Ordinal)), f(r),
			esc(l.T("profile.chart.point", "N", l.Num(i+1), "Date", l.Date(p.FinishedAt), "Rating", l.Decimal(p.Ordinal, 1))))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
