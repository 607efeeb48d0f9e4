package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// withLimits turns the rate limits on, with the limiter's background
// sync running as in azuld. The benchmark's clients play hundreds of
// moves a second on one account each, far past any honest player, and
// all register from one address, so those limits are raised out of their
// way: the checks cost the same whatever the numbers.
func withLimits(b *testing.B) func(*setup) {
	return func(c *setup) {
		// The app runs the limiter's synchronisation.
		p, err := limits.ParsePolicy(func(name string) string {
			return map[string]string{limits.APICalls: "1000000/min", limits.Moves: "1000000/min", limits.Games: "1000000/h", limits.Registrations: "1000/h"}[name]
		})
		if err != nil {
			b.Fatal(err)
		}
		c.app.Limits, c.app.Policy = limits.Options{}, p
	}
}

// BenchmarkMoveLimitChecks is what the rate limits add to one move's
// request, alone: the failed token list, the account's API calls and
// moves (both fast rules), over 1,000 accounts, with the background sync
// running; side by side with limits off. It reports the p50 and p99 of
// the checks per move.
func BenchmarkMoveLimitChecks(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("limits=%s", map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
			var opts []func(*setup)
			if on {
				opts = append(opts, withLimits(b))
			}
			env := newBenchEnv(b, opts...)
			players := make([]play.Player, 1000)
			for i := range players {
				players[i] = play.Player{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i)}
			}
			e := echo.New()
			req := httptest.NewRequest(http.MethodPost, "/v1/games/x/moves", nil)
			req.RemoteAddr = "198.51.100.7:4242"
			c := e.NewContext(req, httptest.NewRecorder())
			s := env.srv
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				p := players[i%len(players)]
				start := time.Now()
				err := s.limits.isBlocked(clientKey(c))
				if err == nil {
					err = s.limitAccount(c, limits.APICalls, p)
				}
				if err == nil {
					err = s.limitAccount(c, limits.Moves, p)
				}
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(percentile(lat, 0.50).Nanoseconds())/1000, "p50-µs")
			b.ReportMetric(float64(percentile(lat, 0.99).Nanoseconds())/1000, "p99-µs")
		})
	}
}

// BenchmarkMovesLimitsOnOff is BenchmarkMovesEndToEnd with the rate
// limits off and on at their defaults, alternated in one run, so the
// limits' share of a move's latency is read beside the same machine's
// noise.
func BenchmarkMovesLimitsOnOff(b *testing.B) {
	for _, clients := range []int{1, 8} {
		for _, round := range []int{1, 2} {
			for _, on := range []bool{false, true} {
				name := fmt.Sprintf("clients=%d/round=%d/limits=%s", clients, round, map[bool]string{false: "off", true: "on"}[on])
				b.Run(name, func(b *testing.B) {
					if on {
						benchMoves(b, clients, withLimits(b))
					} else {
						benchMoves(b, clients)
					}
				})
			}
		}
	}
}
