package loadgen

import (
	"math"
	"testing"
)

// The quantiles of a histogram's difference are interpolated within the
// bucket they fall in, as Prometheus's histogram_quantile does.
func TestHistogramQuantile(t *testing.T) {
	inf := math.Inf(1)
	before := histogram{bounds: []float64{0.01, 0.1, 1, inf}, counts: []uint64{10, 10, 10, 10}}
	// 100 more samples: 50 at or below 10 ms, 40 more below 100 ms, 9
	// more below 1 s, one above.
	after := histogram{bounds: before.bounds, counts: []uint64{60, 100, 109, 110}}
	d := after.since(before)
	if d.total() != 100 {
		t.Fatalf("total %d, want 100", d.total())
	}
	for _, c := range []struct{ q, want float64 }{
		{0.25, 0.005},                 // halfway into the first bucket, from 0
		{0.5, 0.01},                   // its top
		{0.7, 0.01 + 0.09*20/40},      // half of the second bucket
		{0.99, 0.1 + 0.9*(99-90)/9.0}, // the top of the third
		{1, 1},                        // the +Inf bucket: the highest finite bound
	} {
		if got := d.quantile(c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if (histogram{}).quantile(0.5) != 0 || followerLag(before, before) != nil {
		t.Error("an empty histogram has quantiles, or no appends gave a lag")
	}
}
