package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/play"
)

// ProbeConfig is one measurement of what players read, against azuld over
// a database of some history: each kind of request is sent Samples times,
// one at a time, to games and players drawn at random from the database.
type ProbeConfig struct {
	// URL is azuld's base URL; DB the database it serves (read here to
	// draw games and players, to give one player a token, and to size
	// the log).
	URL string
	DB  *pgxpool.Pool
	// Samples is the number of requests of each kind.
	Samples int
	// Analysis also measures the answer of the first request for a
	// finished game's analysis (it queues a job that then runs on the
	// server, so it is measured last).
	Analysis bool
	// Seed fixes the draws.
	Seed uint64
	// HTTP is the client (default: a client of its own).
	HTTP *http.Client
	// Progress, if set, gets a line per kind as it is measured.
	Progress io.Writer
}

// Probe kinds, in the order they are measured.
const (
	ProbeLobby    = "lobby"
	ProbeWatch    = "watch"
	ProbeInbox    = "inbox"
	ProbeMyGames  = "my_games"
	ProbeFinished = "finished_list"
	ProbeLoad     = "load_running"
	ProbeReplay   = "replay"
	ProbeExport   = "export"
	ProbeLeaders  = "leaderboard"
	ProbeProfile  = "profile"
	ProbeAnalysis = "analysis_enqueue"
)

// ProbeSummary is the outcome of Probe.
type ProbeSummary struct {
	URL     string `json:"url"`
	Samples int    `json:"samples"`
	// Latency is each kind's latency, from sending the request to reading
	// the whole answer.
	Latency map[string]Latency `json:"latency"`
	// Kinds lists the kinds measured, in order.
	Kinds []string `json:"kinds"`
	Size  Sizes    `json:"size"`
}

// Sizes is how much room the history takes.
type Sizes struct {
	Games    int64 `json:"games"`
	Finished int64 `json:"finished_games"`
	Running  int64 `json:"running_games"`
	Events   int64 `json:"events"`
	// The events table: its rows, its indexes, its TOAST (with its index).
	EventsHeap    int64 `json:"events_heap_bytes"`
	EventsIndexes int64 `json:"events_index_bytes"`
	EventsTOAST   int64 `json:"events_toast_bytes"`
	// Database is the whole database (the read models, keys, snapshots
	// and jobs included).
	Database int64 `json:"database_bytes"`
}

// BytesPerEvent is the events table's size (rows, indexes, TOAST) per event.
func (s Sizes) BytesPerEvent() float64 {
	if s.Events == 0 {
		return 0
	}
	return float64(s.EventsHeap+s.EventsIndexes+s.EventsTOAST) / float64(s.Events)
}

// BytesPerGame is the whole database's size per game.
func (s Sizes) BytesPerGame() float64 {
	if s.Games == 0 {
		return 0
	}
	return float64(s.Database) / float64(s.Games)
}

// probeTarget is what one request of a kind is about.
type probeTarget struct {
	// game is the game's id (a player's, for a profile).
	game    string
	version int64
}

// Probe measures the reads of the lobby, a player's inbox and lists, a
// running game's state (loaded and folded: every game is asked for once,
// so that azuld's cache does not answer), a finished game's replay at a
// random version and its export, and (with Analysis) the queueing of an
// analysis.
func Probe(ctx context.Context, cfg ProbeConfig) (_ ProbeSummary, retErr error) {
	if cfg.URL == "" || cfg.DB == nil {
		return ProbeSummary{}, errors.New("probe: a URL and a database are needed")
	}
	if cfg.Samples < 1 {
		return ProbeSummary{}, fmt.Errorf("probe: samples must be at least 1, not %d", cfg.Samples)
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: time.Minute}
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	sum := ProbeSummary{URL: cfg.URL, Samples: cfg.Samples, Latency: map[string]Latency{}}
	size, err := measureSizes(ctx, cfg.DB)
	if err != nil {
		return sum, err
	}
	sum.Size = size
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	token, err := probeToken(ctx, cfg.DB)
	if err != nil {
		return sum, err
	}
	running, err := drawGames(ctx, cfg.DB, play.StatusActive, cfg.Samples, rng)
	if err != nil {
		return sum, err
	}
	finished, err := drawGames(ctx, cfg.DB, play.StatusFinished, cfg.Samples, rng)
	if err != nil {
		return sum, err
	}
	players, err := drawPlayers(ctx, cfg.DB, cfg.Samples)
	if err != nil {
		return sum, err
	}
	// asked are the analyses requested, withdrawn at the end.
	var asked []probeTarget
	same := func(path string) func(probeTarget) string { return func(probeTarget) string { return path } }
	type kind struct {
		name, token string
		targets     []probeTarget
		path        func(probeTarget) string
		ok          []int
	}
	kinds := []kind{
		{name: ProbeLobby, path: same("/v1/games?status=open")},
		{name: ProbeWatch, path: same("/v1/games?watch=1")},
		{name: ProbeInbox, token: token, path: same("/v1/me/turns")},
		{name: ProbeMyGames, token: token, path: same("/v1/games?player=me")},
		{name: ProbeFinished, path: same("/v1/games?status=finished")},
		{name: ProbeLoad, targets: running, path: func(t probeTarget) string { return "/v1/games/" + t.game + "/state" }},
		{name: ProbeReplay, targets: finished, path: func(t probeTarget) string {
			return fmt.Sprintf("/v1/games/%s/state?version=%d", t.game, 1+rng.Int64N(t.version))
		}},
		{name: ProbeExport, targets: finished, path: func(t probeTarget) string { return "/v1/games/" + t.game + "/export" }},
		{name: ProbeLeaders, path: same("/v1/ratings?ruleset=azul-mini&players=2")},
		{name: ProbeProfile, targets: players, path: func(t probeTarget) string { return "/v1/players/" + t.game }},
	}
	if cfg.Analysis {
		// 202 queues the job; 200 is an analysis already stored (a
		// history probed before).
		kinds = append(kinds, kind{name: ProbeAnalysis, targets: finished, ok: []int{http.StatusAccepted, http.StatusOK}, path: func(t probeTarget) string {
			v := 1 + rng.Int64N(max(1, t.version-1))
			asked = append(asked, probeTarget{game: t.game, version: v})
			return fmt.Sprintf("/v1/games/%s/analysis?version=%d", t.game, v)
		}})
	}
	if cfg.Analysis {
		// The analyses the probe asks for are withdrawn once measured:
		// left queued, they would run on the server for minutes and load
		// whatever is measured next.
		defer func() {
			if err := withdrawAnalyses(context.WithoutCancel(ctx), cfg.DB, asked); err != nil && retErr == nil {
				retErr = err
			}
		}()
	}
	for _, k := range kinds {
		if k.targets != nil && len(k.targets) == 0 {
			continue // no such games in this history
		}
		ds := make([]time.Duration, 0, cfg.Samples)
		for i := range cfg.Samples {
			var t probeTarget
			if k.targets != nil {
				t = k.targets[i%len(k.targets)]
			}
			d, err := cfg.get(ctx, k.path(t), k.token, k.ok)
			if err != nil {
				return sum, fmt.Errorf("probe %s: %w", k.name, err)
			}
			ds = append(ds, d)
		}
		l := latency(ds)
		sum.Latency[k.name] = l
		sum.Kinds = append(sum.Kinds, k.name)
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "%-16s p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms\n", k.name, l.P50, l.P99, l.Max)
		}
	}
	return sum, nil
}

// get sends one GET and reads the whole answer; a status other than 200
// (or one of want, when set) is an error: a probe measures answers, not
// refusals.
func (cfg ProbeConfig) get(ctx context.Context, path, token string, want []int) (time.Duration, error) {
	if want == nil {
		want = []int{http.StatusOK}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.URL+path, nil)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	begun := time.Now()
	resp, err := cfg.HTTP.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	d := time.Since(begun)
	if err != nil {
		return 0, fmt.Errorf("GET %s: read the answer: %w", path, err)
	}
	if !slices.Contains(want, resp.StatusCode) {
		return 0, fmt.Errorf("GET %s: status %d, want %v: %.200s", path, resp.StatusCode, want, body)
	}
	return d, nil
}

// withdrawAnalyses deletes the jobs of the analyses asked for that no
// worker has taken yet, and the requests they were to answer.
func withdrawAnalyses(ctx context.Context, db *pgxpool.Pool, asked []probeTarget) error {
	games, versions := make([]string, len(asked)), make([]int64, len(asked))
	for i, a := range asked {
		games[i], versions[i] = a.game, a.version
	}
	_, err := db.Exec(ctx, `
		WITH asked AS (SELECT * FROM unnest($1::uuid[], $2::bigint[]) AS a (game_id, version)),
		jobs AS (DELETE FROM river_job r USING asked a
			WHERE r.kind = 'azuld_analysis' AND r.state IN ('available', 'scheduled', 'retryable')
				AND (r.args->>'game_id')::uuid = a.game_id AND (r.args->>'version')::bigint = a.version
			RETURNING a.game_id, a.version)
		DELETE FROM game_analyses g USING jobs j WHERE g.game_id = j.game_id AND g.version = j.version AND g.result IS NULL`,
		games, versions)
	if err != nil {
		return fmt.Errorf("withdraw the probe's analyses: %w", err)
	}
	return nil
}

// drawGames draws n games of a status at random (fewer if there are
// fewer), each with its last version.
func drawGames(ctx context.Context, db *pgxpool.Pool, status string, n int, rng *rand.Rand) ([]probeTarget, error) {
	// setseed makes random() repeat a draw for the same seed.
	rows, err := db.Query(ctx, `
		WITH s AS (SELECT setseed($3::float8))
		SELECT id::text, version FROM games, s WHERE status = $1 ORDER BY random() LIMIT $2`,
		status, n, rng.Float64()*2-1)
	if err != nil {
		return nil, fmt.Errorf("draw %s games: %w", status, err)
	}
	defer rows.Close()
	var out []probeTarget
	for rows.Next() {
		var t probeTarget
		if err := rows.Scan(&t.game, &t.version); err != nil {
			return nil, fmt.Errorf("draw %s games: %w", status, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("draw %s games: %w", status, err)
	}
	// The database's order is random already; shuffling again keeps the
	// draw independent of how PostgreSQL breaks ties.
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return slices.Clip(out), nil
}

// drawPlayers draws up to n players with finished games, at random (a
// target's game is the player's id).
func drawPlayers(ctx context.Context, db *pgxpool.Pool, n int) ([]probeTarget, error) {
	rows, err := db.Query(ctx, `
		SELECT player_id::text FROM (SELECT DISTINCT player_id FROM results WHERE player_id IS NOT NULL) p
		ORDER BY md5(player_id::text) LIMIT $1`, n)
	if err != nil {
		return nil, fmt.Errorf("draw players: %w", err)
	}
	defer rows.Close()
	var out []probeTarget
	for rows.Next() {
		var t probeTarget
		if err := rows.Scan(&t.game); err != nil {
			return nil, fmt.Errorf("draw players: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("draw players: %w", err)
	}
	return out, nil
}

// probeToken gives a new API token to the player with the most seats to
// act on (the heaviest inbox), so the inbox and a player's list are read
// as that player.
func probeToken(ctx context.Context, db *pgxpool.Pool) (string, error) {
	var player string
	err := db.QueryRow(ctx, `
		SELECT player_id::text FROM (
			SELECT player_id, count(*) AS n FROM turn_inbox GROUP BY player_id
			UNION ALL
			SELECT id, -1 FROM (SELECT id FROM players ORDER BY created_at LIMIT 1) p
		) c ORDER BY n DESC, player_id LIMIT 1`).Scan(&player)
	if err != nil {
		return "", fmt.Errorf("choose the probe's player: %w", err)
	}
	token, hash, err := play.NewToken()
	if err != nil {
		return "", err
	}
	if _, err := db.Exec(ctx, `INSERT INTO api_tokens (player_id, name, hash) VALUES ($1, 'azul-load probe', $2)`, player, hash); err != nil {
		return "", fmt.Errorf("give the probe's player a token: %w", err)
	}
	return token, nil
}

// measureSizes reads the history's counts and sizes.
func measureSizes(ctx context.Context, db *pgxpool.Pool) (Sizes, error) {
	var s Sizes
	err := db.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM games),
		       (SELECT count(*) FROM games WHERE status = 'finished'),
		       (SELECT count(*) FROM games WHERE status = 'active'),
		       (SELECT count(*) FROM events),
		       pg_relation_size('events'),
		       pg_indexes_size('events'),
		       coalesce((SELECT pg_total_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'events'::regclass AND reltoastrelid <> 0), 0),
		       pg_database_size(current_database())`).Scan(
		&s.Games, &s.Finished, &s.Running, &s.Events, &s.EventsHeap, &s.EventsIndexes, &s.EventsTOAST, &s.Database)
	if err != nil {
		return s, fmt.Errorf("measure the history: %w", err)
	}
	return s, nil
}

// Text is the summary for people.
func (s ProbeSummary) Text() string {
	var b strings.Builder
	z := s.Size
	fmt.Fprintf(&b, "azuld at %s over %d games (%d finished, %d running), %d events\n", s.URL, z.Games, z.Finished, z.Running, z.Events)
	fmt.Fprintf(&b, "events       rows %d MB  indexes %d MB  TOAST %d MB  %.0f bytes/event\n",
		z.EventsHeap>>20, z.EventsIndexes>>20, z.EventsTOAST>>20, z.BytesPerEvent())
	fmt.Fprintf(&b, "database     %d MB  %.0f bytes/game\n", z.Database>>20, z.BytesPerGame())
	for _, k := range s.Kinds {
		l := s.Latency[k]
		fmt.Fprintf(&b, "%-16s p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms  mean %.2f ms  (%d requests)\n",
			k, l.P50, l.P90, l.P99, l.Max, l.Mean, s.Samples)
	}
	return b.String()
}
