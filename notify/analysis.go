package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/play"
)

// DefaultAnalysisPlayouts is the search behind one analysis: whole-game
// playouts shared among the legal moves (a second or two of one core).
const DefaultAnalysisPlayouts = 12000

// AnalysisArgs asks a worker to analyse a finished game's position at a
// version: the search bot's evaluation of every legal move of the seat to
// act there.
type AnalysisArgs struct {
	GameID  string `json:"game_id"`
	Version int64  `json:"version"`
}

// Kind is the River job kind.
func (AnalysisArgs) Kind() string { return "azuld_analysis" }

type analysisWorker struct {
	river.WorkerDefaults[AnalysisArgs]
	n *Notifier
}

// Timeout leaves the search ample time on a busy machine.
func (w *analysisWorker) Timeout(*river.Job[AnalysisArgs]) time.Duration { return 5 * time.Minute }

// analysisPlayouts is Config.AnalysisPlayouts or its default.
func (n *Notifier) analysisPlayouts() int {
	if n.cfg.AnalysisPlayouts > 0 {
		return n.cfg.AnalysisPlayouts
	}
	return DefaultAnalysisPlayouts
}

// Analysis is what GET /v1/games/{id}/analysis returns.
type Analysis struct {
	GameID  string `json:"game_id"`
	Version int64  `json:"version"`
	Seat    int    `json:"seat"`
	// Played is the move the seat made at this version, Best the one the
	// search prefers.
	Played   string         `json:"played"`
	Best     string         `json:"best"`
	Playouts int            `json:"playouts"`
	Moves    []AnalysedMove `json:"moves"`
	Computed time.Time      `json:"computed_at"`
	Note     string         `json:"note"`
}

// AnalysedMove is one legal move with its evaluation. The moves of an
// analysis are in the order of Rank: by the playouts the search gave
// them, so that the first is Best and a move that was not searched
// never comes before one that was.
type AnalysedMove struct {
	Move     json.RawMessage `json:"move"`
	Notation string          `json:"notation"`
	// ScoreDiff is the expected final score of the seat minus the best
	// other seat's after this move, give or take ScoreDiffMargin (the
	// half-width of its 95 % interval; 0 when not Searched); WinRate its
	// share of won playouts.
	ScoreDiff       float64 `json:"score_diff"`
	ScoreDiffMargin float64 `json:"score_diff_margin"`
	WinRate         float64 `json:"win_rate"`
	Visits          int     `json:"visits"`
	Rank            int     `json:"rank"`
	// Searched: the search tried the move often enough for its figures to
	// mean something (bots.MinSearchedVisits playouts); the others had
	// the playout or few every move gets.
	Searched bool `json:"searched"`
}

// ErrAnalysisUnavailable: the position cannot be analysed (nobody moves
// there, or the move was not a seat's).
var ErrAnalysisUnavailable = errors.New("no analysis for this position")

// RequestAnalysis returns the stored analysis of a game at a version, or
// (nil, false) after making sure a job computes it. The caller checks that
// the game is finished and the version is a position with a move.
func (n *Notifier) RequestAnalysis(ctx context.Context, gameID string, version int64) (json.RawMessage, bool, error) {
	tx, err := n.pool.Begin(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("analysis: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var result []byte
	err = tx.QueryRow(ctx, `SELECT result FROM game_analyses WHERE game_id = $1 AND version = $2`, gameID, version).Scan(&result)
	switch {
	case err == nil && result != nil:
		return result, true, nil
	case err == nil:
		return nil, false, nil // a job is at work
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, false, fmt.Errorf("analysis: read: %w", err)
	}
	tag, err := tx.Exec(ctx, `INSERT INTO game_analyses (game_id, version) VALUES ($1, $2) ON CONFLICT DO NOTHING`, gameID, version)
	if err != nil {
		return nil, false, fmt.Errorf("analysis: request: %w", err)
	}
	if tag.RowsAffected() == 1 {
		if _, err := n.client.InsertTx(ctx, tx, AnalysisArgs{GameID: gameID, Version: version},
			&river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}); err != nil {
			return nil, false, fmt.Errorf("analysis: enqueue: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, false, fmt.Errorf("analysis: commit: %w", err)
	}
	return nil, false, nil
}

func (w *analysisWorker) Work(ctx context.Context, job *river.Job[AnalysisArgs]) error {
	n, a := w.n, job.Args
	res, err := n.analyse(ctx, a.GameID, a.Version)
	if errors.Is(err, ErrAnalysisUnavailable) {
		// Stored as an empty analysis that says why, so that the request
		// gets an answer instead of waiting for ever.
		res = &Analysis{GameID: a.GameID, Version: a.Version, Seat: -1, Moves: []AnalysedMove{}, Computed: n.now().UTC(), Note: err.Error()}
	} else if err != nil {
		return err
	}
	data, err := json.Marshal(res)
	if err != nil {
		return river.JobCancel(fmt.Errorf("analysis: encode: %w", err))
	}
	if _, err := n.pool.Exec(ctx, `
		UPDATE game_analyses SET result = $3, finished_at = now() WHERE game_id = $1 AND version = $2`,
		a.GameID, a.Version, data); err != nil {
		return fmt.Errorf("analysis: store: %w", err)
	}
	return nil
}

// analyse computes the analysis of a finished game at a version.
func (n *Notifier) analyse(ctx context.Context, gameID string, version int64) (*Analysis, error) {
	cur, err := n.svc.Game(ctx, gameID)
	if err != nil {
		return nil, fmt.Errorf("load game %s: %w", gameID, err)
	}
	if !gameFinished(cur) {
		return nil, fmt.Errorf("%w: the game is not finished", ErrAnalysisUnavailable)
	}
	g, err := n.svc.GameAt(ctx, gameID, version)
	if err != nil {
		return nil, fmt.Errorf("load game %s at %d: %w", gameID, version, err)
	}
	recs, err := n.svc.Events(ctx, gameID, version, 1)
	if err != nil {
		return nil, fmt.Errorf("load the move after version %d: %w", version, err)
	}
	if len(recs) == 0 || recs[0].Meta.Actor.Seat == nil {
		return nil, fmt.Errorf("%w: no seat moved after version %d", ErrAnalysisUnavailable, version)
	}
	seat := *recs[0].Meta.Actor.Seat
	res, err := bots.Analyse(g.State, seat, n.analysisPlayouts(), uint64(version))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAnalysisUnavailable, err)
	}
	out := &Analysis{
		GameID: gameID, Version: version, Seat: seat, Played: recs[0].Meta.Notation,
		Best: res.Best, Playouts: res.Playouts, Computed: n.now().UTC(),
		Note: "score_diff: the seat's expected final score minus the best other seat's, estimated by the search's playouts (of the rest of the game in Azul Mini; to the round's end, then valued by the bots' evaluation, in Summer Pavilion), give or take score_diff_margin (95 % interval); " +
			"the moves are ranked by the playouts the search gave them, searched ones first",
	}
	for _, m := range res.Moves {
		out.Moves = append(out.Moves, AnalysedMove{Move: m.Move.JSON, Notation: m.Notation, ScoreDiff: m.ScoreDiff, ScoreDiffMargin: m.ScoreDiffMargin,
			WinRate: m.WinRate, Visits: m.Visits, Rank: m.Rank, Searched: m.Searched})
	}
	return out, nil
}

// gameFinished reports whether a game is over (analyses are only for
// finished games: fair play).
func gameFinished(g *play.Game) bool { return g.Status == play.StatusFinished }
