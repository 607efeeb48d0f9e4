package loadgen

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// recorder gathers what the clients saw. Latencies are kept whole (8
// bytes a move: a million moves take 8 MB) so percentiles are exact.
type recorder struct {
	mu        sync.Mutex
	moves     []time.Duration
	window    []time.Duration
	reads     []time.Duration
	errors    map[string]int
	retries   int
	conflicts int
	started   int
	finished  int
	// feel holds the kinds measured (Config.Feel).
	feel map[string]*feelStats
}

func newRecorder(feel []string) *recorder {
	r := &recorder{errors: map[string]int{}, feel: map[string]*feelStats{}}
	for _, k := range feel {
		r.feel[k] = &feelStats{}
	}
	return r
}

// feelSample records what a player felt of one move.
func (r *recorder) feelSample(kind string, d time.Duration) {
	r.mu.Lock()
	if f := r.feel[kind]; f != nil {
		f.add(d)
	}
	r.mu.Unlock()
}

// feelMissing counts a move never seen within the wait.
func (r *recorder) feelMissing(kind string) {
	r.mu.Lock()
	if f := r.feel[kind]; f != nil {
		f.missing++
	}
	r.mu.Unlock()
}

func (r *recorder) move(d time.Duration) {
	r.mu.Lock()
	r.moves = append(r.moves, d)
	r.window = append(r.window, d)
	r.mu.Unlock()
}

func (r *recorder) read(d time.Duration) {
	r.mu.Lock()
	r.reads = append(r.reads, d)
	r.mu.Unlock()
}

func (r *recorder) fail(kind string) {
	r.mu.Lock()
	r.errors[kind]++
	r.mu.Unlock()
}

func (r *recorder) retry() {
	r.mu.Lock()
	r.retries++
	r.mu.Unlock()
}

func (r *recorder) conflict() {
	r.mu.Lock()
	r.conflicts++
	r.mu.Unlock()
}

func (r *recorder) game(finished bool) {
	r.mu.Lock()
	if finished {
		r.finished++
	} else {
		r.started++
	}
	r.mu.Unlock()
}

func (r *recorder) moveCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.moves)
}

// Latency is a distribution of latencies in milliseconds.
type Latency struct {
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

// latency summarises durations (sorted here).
func latency(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latency{
		P50: ms(quantile(ds, 0.50)), P90: ms(quantile(ds, 0.90)), P99: ms(quantile(ds, 0.99)),
		Max: ms(ds[len(ds)-1]), Mean: ms(sum / time.Duration(len(ds))),
	}
}

// quantile is the nearest-rank quantile of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Summary is the outcome of a run.
type Summary struct {
	URL     string  `json:"url"`
	Clients int     `json:"clients"`
	Rate    float64 `json:"target_rate,omitempty"`
	// Seconds is the run's length.
	Seconds float64 `json:"seconds"`
	// Moves are the moves the server acknowledged (201).
	Moves       int     `json:"moves"`
	MovesPerSec float64 `json:"moves_per_second"`
	// Move is the latency of POST …/moves, from sending the request to
	// reading the whole answer (retries included).
	Move Latency `json:"move_latency"`
	// Read is the latency of GET …/legal-moves, which picks each move.
	Read Latency `json:"legal_moves_latency"`
	// Errors are the failures by kind (HTTP status or transport error),
	// after the retries gave up.
	Errors     map[string]int `json:"errors"`
	ErrorCount int            `json:"error_count"`
	// Retries are requests sent again (503, 429, lost connections) with
	// the same Idempotency-Key; Conflicts moves refused with 409 (the
	// game moved on) and chosen again.
	Retries       int `json:"retries"`
	Conflicts     int `json:"conflicts"`
	GamesStarted  int `json:"games_started"`
	GamesFinished int `json:"games_finished"`
	// Feel is what the players felt of the moves besides their answers:
	// the turn mail, the bot's answer, the web page (nil: not measured).
	Feel *Feel `json:"feel,omitempty"`
	// Follower is the lag of azuld's log follower over the run, from its
	// /metrics (nil: not exported).
	Follower *FollowerLag `json:"follower_lag,omitempty"`
}

// summary is the run's summary so far.
func (r *recorder) summary(cfg Config, elapsed time.Duration) Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Summary{
		URL: cfg.URL, Clients: cfg.Clients, Rate: cfg.Rate, Seconds: elapsed.Seconds(),
		Moves: len(r.moves), Move: latency(slices.Clone(r.moves)), Read: latency(slices.Clone(r.reads)),
		Errors: maps.Clone(r.errors), Retries: r.retries, Conflicts: r.conflicts,
		GamesStarted: r.started, GamesFinished: r.finished,
	}
	for _, n := range r.errors {
		s.ErrorCount += n
	}
	if len(r.feel) > 0 {
		s.Feel = &Feel{}
		if f := r.feel[FeelMail]; f != nil {
			s.Feel.Mail = f.summary()
		}
		if f := r.feel[FeelBot]; f != nil {
			s.Feel.Bot = f.summary()
		}
		if f := r.feel[FeelWeb]; f != nil {
			s.Feel.Web = f.summary()
		}
	}
	if elapsed > 0 {
		s.MovesPerSec = float64(s.Moves) / elapsed.Seconds()
	}
	return s
}

// progress writes one line: the moves since the last line, their rate and
// latency, and the totals.
func (r *recorder) progress(w io.Writer, elapsed, since time.Duration) {
	r.mu.Lock()
	window := r.window
	r.window = nil
	total, errs, retries := len(r.moves), 0, r.retries
	for _, n := range r.errors {
		errs += n
	}
	var feel strings.Builder
	for _, k := range []string{FeelMail, FeelBot, FeelWeb} {
		if f := r.feel[k]; f != nil {
			fl := latency(f.window)
			fmt.Fprintf(&feel, "  %s p50 %.1f p99 %.1f ms", k, fl.P50, fl.P99)
			f.window = nil
		}
	}
	r.mu.Unlock()
	l := latency(window)
	rate := 0.0
	if since > 0 {
		rate = float64(len(window)) / since.Seconds()
	}
	fmt.Fprintf(w, "%6.1fs  moves %7d  %8.1f/s  p50 %7.2f ms  p99 %7.2f ms  errors %d  retries %d%s\n",
		elapsed.Seconds(), total, rate, l.P50, l.P99, errs, retries, feel.String())
}

// Text is the summary for people.
func (s Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "azuld at %s, %d clients", s.URL, s.Clients)
	if s.Rate > 0 {
		fmt.Fprintf(&b, ", target %.1f moves/s", s.Rate)
	}
	fmt.Fprintf(&b, ", %.1f s\n", s.Seconds)
	fmt.Fprintf(&b, "moves        %d acknowledged, %.1f/s\n", s.Moves, s.MovesPerSec)
	fmt.Fprintf(&b, "move         p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms  mean %.2f ms\n", s.Move.P50, s.Move.P90, s.Move.P99, s.Move.Max, s.Move.Mean)
	fmt.Fprintf(&b, "legal-moves  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms  mean %.2f ms\n", s.Read.P50, s.Read.P90, s.Read.P99, s.Read.Max, s.Read.Mean)
	fmt.Fprintf(&b, "games        %d started, %d finished\n", s.GamesStarted, s.GamesFinished)
	fmt.Fprintf(&b, "errors       %d", s.ErrorCount)
	for _, k := range slices.Sorted(maps.Keys(s.Errors)) {
		fmt.Fprintf(&b, "  %s: %d", k, s.Errors[k])
	}
	fmt.Fprintf(&b, "\nretries      %d  conflicts %d\n", s.Retries, s.Conflicts)
	if f := s.Follower; f != nil {
		fmt.Fprintf(&b, "follower lag p50 %.1f ms  p99 %.1f ms  (%d appends, azuld's histogram)\n", f.P50, f.P99, f.Samples)
	}
	if s.Feel != nil {
		feel := func(name string, f *FeelLatency) {
			if f == nil {
				return
			}
			fmt.Fprintf(&b, "%-12s p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms  mean %.2f ms  (%d samples, %d early, %d missing",
				name, f.P50, f.P90, f.P99, f.Max, f.Mean, f.Samples, f.Early, f.Missing)
			if f.Mismatched > 0 || f.Unclaimed > 0 {
				fmt.Fprintf(&b, ", %d mismatched, %d unclaimed", f.Mismatched, f.Unclaimed)
			}
			b.WriteString(")\n")
		}
		feel("feel mail", s.Feel.Mail)
		feel("feel bot", s.Feel.Bot)
		feel("feel web", s.Feel.Web)
	}
	return b.String()
}
