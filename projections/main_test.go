package projections_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/projections"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

func newPool(tb testing.TB) *pgxpool.Pool { return pg.NewPool(tb) }

// The synthetic games of these tests: a few server-like events whose fold
// gives a GameRow, standing in for the rules the play package folds.
type (
	seatSpec struct {
		PlayerID string `json:"player_id,omitempty"`
		Bot      string `json:"bot,omitempty"`
		Name     string `json:"name"`
	}
	created struct {
		Ruleset   string     `json:"ruleset"`
		Seats     []seatSpec `json:"seats"`
		CreatedBy string     `json:"created_by,omitempty"`
		Unrated   bool       `json:"unrated,omitempty"`
		Private   bool       `json:"private,omitempty"`
	}
	joined struct {
		Seat     int    `json:"seat"`
		PlayerID string `json:"player_id"`
		Name     string `json:"name"`
	}
	turn struct {
		ToAct    []int      `json:"to_act"`
		Deadline *time.Time `json:"deadline,omitempty"`
	}
	finished struct {
		Scores []int `json:"scores"`
	}
)

func newEvent(tb testing.TB, typ string, v any) events.NewEvent {
	tb.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return events.NewEvent{Type: typ, Schema: 1, Data: data}
}

// fold computes a game's row from its synthetic events.
func fold(_ context.Context, id string, recs []events.Record) (projections.GameRow, error) {
	var row projections.GameRow
	var toAct []int
	over := false
	for _, r := range recs {
		switch r.Type {
		case "game.created":
			var c created
			if err := json.Unmarshal(r.Data, &c); err != nil {
				return row, err
			}
			row = projections.GameRow{ID: id, Ruleset: c.Ruleset, CreatedBy: c.CreatedBy, CreatedAt: r.RecordedAt,
				Options: engine.Options{Wall: "grey"}, Unrated: c.Unrated, Private: c.Private}
			for i, s := range c.Seats {
				row.Seats = append(row.Seats, projections.SeatRow{Seat: i, PlayerID: s.PlayerID, Bot: s.Bot, Name: s.Name})
			}
		case "seat.joined":
			var j joined
			if err := json.Unmarshal(r.Data, &j); err != nil {
				return row, err
			}
			if j.Seat < 0 || j.Seat >= len(row.Seats) {
				return row, fmt.Errorf("no seat %d", j.Seat)
			}
			row.Seats[j.Seat].PlayerID, row.Seats[j.Seat].Name = j.PlayerID, j.Name
		case "turn":
			var tu turn
			if err := json.Unmarshal(r.Data, &tu); err != nil {
				return row, err
			}
			toAct, row.Deadline = tu.ToAct, tu.Deadline
		case "finished":
			var f finished
			if err := json.Unmarshal(r.Data, &f); err != nil {
				return row, err
			}
			over, toAct, row.Deadline = true, nil, nil
			row.Final = &engine.Final{Reason: "rounds_played"}
			for seat, score := range f.Scores {
				rank := 1
				for _, other := range f.Scores {
					if other > score {
						rank++
					}
				}
				row.Final.Players = append(row.Final.Players, engine.FinalPlayer{Seat: seat, Score: score, Rank: rank})
				if rank == 1 {
					row.Final.Winners = append(row.Final.Winners, seat)
				}
			}
		case "note", "game.seat_left":
		default:
			return row, fmt.Errorf("unknown event %q", r.Type)
		}
		row.Version, row.LastMoveAt = r.Version, r.RecordedAt
	}
	switch {
	case over:
		row.Status = "finished"
	case slices.ContainsFunc(row.Seats, func(s projections.SeatRow) bool { return s.PlayerID == "" && s.Bot == "" }):
		row.Status, toAct = "open", nil
	default:
		row.Status = "active"
	}
	row.ToAct = append([]int{}, toAct...)
	return row, nil
}

// liveGame appends to one synthetic game the way the command path does:
// the read models are updated by the append's hook, in its transaction.
type liveGame struct {
	id   string
	recs []events.Record
}

func (g *liveGame) append(tb testing.TB, store *events.Store, evs ...events.NewEvent) {
	tb.Helper()
	res, err := store.Append(context.Background(), events.AppendRequest{
		StreamID: g.id, ExpectedVersion: int64(len(g.recs)), Events: evs,
		Hook: func(ctx context.Context, tx pgx.Tx, appended []events.Record) error {
			row, err := fold(ctx, g.id, append(slices.Clone(g.recs), appended...))
			if err != nil {
				return err
			}
			if len(g.recs) == 0 {
				return projections.Apply(ctx, tx, row)
			}
			// Later appends write only what changed, as the command
			// path does; rebuilds (full rows) must agree with them.
			before, err := fold(ctx, g.id, g.recs)
			if err != nil {
				return err
			}
			return projections.ApplyChange(ctx, tx, &before, row)
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	g.recs = append(g.recs, res.Records...)
}

// dump reads every read-model table in a stable order, as text.
func dump(tb testing.TB, db projections.DB) map[string][]string {
	tb.Helper()
	out := map[string][]string{}
	for table, order := range map[string]string{
		"games": "id", "game_seats": "game_id, seat", "turn_inbox": "player_id, game_id, seat", "results": "game_id, seat",
	} {
		rows, err := db.Query(context.Background(), fmt.Sprintf(`SELECT t::text FROM %s t ORDER BY %s`, table, order))
		if err != nil {
			tb.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			tb.Fatal(err)
		}
		out[table] = lines
	}
	return out
}

func sameDump(tb testing.TB, got, want map[string][]string) {
	tb.Helper()
	for table := range want {
		if !slices.Equal(got[table], want[table]) {
			tb.Errorf("table %s differs:\n got %s\nwant %s", table,
				strings.Join(got[table], "\n     "), strings.Join(want[table], "\n     "))
		}
	}
}
