package browser

import (
	"testing"
)

// BenchmarkTablePageFirstPaint loads a Summer Pavilion table page in
// headless Chromium over loopback, as its player, b.N times, and reports
// what the browser itself measured for the last loads: first-paint-ms (the
// first contentful paint: the page's shell and its text table) and
// table-data-ms (when the last of the API answers the drawing needs, the
// state and the legal moves, had arrived; the SVG is drawn in the frame
// after). Both are from the start of the navigation.
//
//	go test ./api/web/browser -run '^$' -bench FirstPaint -benchtime 20x
func BenchmarkTablePageFirstPaint(b *testing.B) {
	e := newEnv(b)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	for range 6 {
		e.moveREST(id, players)
	}
	var paint, data float64
	b.ResetTimer()
	for range b.N {
		ann.open("/games/" + id)
		ann.waitJS(`document.querySelector('#app svg')`, "the table")
		paint += eval[float64](ann, `(performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint') || {startTime: -1}).startTime`)
		data += eval[float64](ann, `performance.getEntriesByType('resource')
			.filter(e => e.name.includes('/v1/') && !e.name.includes('/stream'))
			.reduce((t, e) => Math.max(t, e.responseEnd), 0)`)
	}
	b.StopTimer()
	b.ReportMetric(paint/float64(b.N), "first-paint-ms")
	b.ReportMetric(data/float64(b.N), "table-data-ms")
}
