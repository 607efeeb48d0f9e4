package loadgen

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// followerLagMetric is azuld's histogram of the time from an append to the
// commit of its read models and jobs by the log's follower.
const followerLagMetric = "azuld_outbox_lag_seconds"

// histogram is a cumulative Prometheus histogram: the count of samples at
// or below each bucket's upper bound, bounds ascending, +Inf last.
type histogram struct {
	bounds []float64
	counts []uint64
}

// scrapeHistogram reads one histogram from a server's /metrics; ok is
// false when the server does not export it (a replica without a follower,
// or a server that is not azuld).
func scrapeHistogram(ctx context.Context, client *http.Client, url, token, name string) (h histogram, ok bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/metrics", nil)
	if err != nil {
		return h, false, fmt.Errorf("metrics: %w", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return h, false, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, false, nil
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return h, false, fmt.Errorf("metrics: %w", err)
	}
	f := families[name]
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM || len(f.GetMetric()) != 1 {
		return h, false, nil
	}
	for _, b := range f.GetMetric()[0].GetHistogram().GetBucket() {
		h.bounds = append(h.bounds, b.GetUpperBound())
		h.counts = append(h.counts, b.GetCumulativeCount())
	}
	h.bounds = append(h.bounds, math.Inf(1))
	h.counts = append(h.counts, f.GetMetric()[0].GetHistogram().GetSampleCount())
	return h, true, nil
}

// since is the histogram of the samples observed after earlier.
func (h histogram) since(earlier histogram) histogram {
	out := histogram{bounds: h.bounds, counts: make([]uint64, len(h.counts))}
	for i := range h.counts {
		out.counts[i] = h.counts[i]
		if i < len(earlier.counts) && earlier.counts[i] <= h.counts[i] {
			out.counts[i] -= earlier.counts[i]
		}
	}
	return out
}

// total is the number of samples.
func (h histogram) total() uint64 {
	if len(h.counts) == 0 {
		return 0
	}
	return h.counts[len(h.counts)-1]
}

// quantile estimates the q-quantile as Prometheus's histogram_quantile
// does: linearly within the bucket it falls in (the lowest bucket from 0);
// a quantile in the +Inf bucket is the highest finite bound.
func (h histogram) quantile(q float64) float64 {
	n := h.total()
	if n == 0 {
		return 0
	}
	rank := q * float64(n)
	for i, c := range h.counts {
		if float64(c) < rank {
			continue
		}
		if math.IsInf(h.bounds[i], 1) {
			if i == 0 {
				return 0
			}
			return h.bounds[i-1]
		}
		lower, below := 0.0, uint64(0)
		if i > 0 {
			lower, below = h.bounds[i-1], h.counts[i-1]
		}
		inBucket := c - below
		if inBucket == 0 {
			return h.bounds[i]
		}
		return lower + (h.bounds[i]-lower)*(rank-float64(below))/float64(inBucket)
	}
	return h.bounds[len(h.bounds)-1]
}

// FollowerLag is the follower's lag over a run, from azuld's own
// histogram: estimates within its buckets (5, 10, 25, 50, 100, 250 ms …).
type FollowerLag struct {
	Samples uint64  `json:"samples"`
	P50     float64 `json:"p50_ms"`
	P99     float64 `json:"p99_ms"`
}

// followerLag is the lag of the appends between two scrapes.
func followerLag(before, after histogram) *FollowerLag {
	d := after.since(before)
	if d.total() == 0 {
		return nil
	}
	return &FollowerLag{Samples: d.total(), P50: d.quantile(0.5) * 1000, P99: d.quantile(0.99) * 1000}
}

// metricsURL is the base URL /metrics is read at.
func (c Config) metricsURL() string {
	if c.MetricsURL != "" {
		return strings.TrimRight(c.MetricsURL, "/")
	}
	return c.URL
}
