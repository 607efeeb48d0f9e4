package history

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// writeGames writes a batch of games: their appends in layers (the k-th
// append of every game in one transaction, so that each append's events
// share a transaction id and follow the game's earlier appends, as when
// azuld commits them one by one), then their read models, secrets and
// idempotency keys and snapshots (of the given format). Commits do not wait for the disk (synchronous_commit
// off): a crash loses the last batch, never the database's consistency.
func writeGames(ctx context.Context, pool *pgxpool.Pool, games []*Game, format int) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("write games: %w", err)
	}
	defer conn.Release()
	ids := make([]pgtype.UUID, len(games))
	firstVersion := make([]int64, len(games))
	layers := 0
	for i, g := range games {
		u, err := uuid.Parse(g.ID)
		if err != nil {
			return fmt.Errorf("write games: game id %q: %w", g.ID, err)
		}
		ids[i] = pgtype.UUID{Bytes: u, Valid: true}
		firstVersion[i] = 1
		layers = max(layers, len(g.Appends))
	}
	for k := range layers {
		var rows [][]any
		for i, g := range games {
			if k >= len(g.Appends) {
				continue
			}
			a := g.Appends[k]
			meta, err := json.Marshal(a.Meta)
			if err != nil {
				return fmt.Errorf("write game %s: meta: %w", g.ID, err)
			}
			for j, e := range a.Events {
				// As the event store: the meta on the append's first
				// event, the marker "the one before" on the others.
				m := json.RawMessage(meta)
				if j > 0 {
					m = sameMeta
				}
				rows = append(rows, []any{ids[i], firstVersion[i] + int64(j), e.Type, int32(e.Schema), json.RawMessage(e.Data), m, a.At})
			}
			firstVersion[i] += int64(len(a.Events))
		}
		err := inTx(ctx, conn, func(tx pgx.Tx) error {
			if k == 0 {
				if err := copyStarts(ctx, tx, games, ids); err != nil {
					return err
				}
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"events"},
				[]string{"stream_id", "version", "type", "schema_version", "data", "meta", "recorded_at"}, pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("write events: %w", err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return inTx(ctx, conn, func(tx pgx.Tx) error { return copyReadModels(ctx, tx, games, ids, format) })
}

// sameMeta is the meta the event store writes on the second and later
// events of an append (see package events): the JSON number 0.
var sameMeta = json.RawMessage(`0`)

// inTx runs fn in a transaction whose commit does not wait for the disk.
func inTx(ctx context.Context, conn *pgxpool.Conn, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return fmt.Errorf("write games: %w", err)
		}
		return fn(tx)
	})
}

// copyStarts writes the games' streams and secret seeds, as their first
// append does.
func copyStarts(ctx context.Context, tx pgx.Tx, games []*Game, ids []pgtype.UUID) error {
	streams := make([][]any, len(games))
	secrets := make([][]any, len(games))
	for i, g := range games {
		at := g.Appends[0].At
		streams[i] = []any{ids[i], at}
		secrets[i] = []any{ids[i], g.Seed.String(), at}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"streams"}, []string{"id", "created_at"}, pgx.CopyFromRows(streams)); err != nil {
		return fmt.Errorf("write streams: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"game_secrets"}, []string{"game_id", "seed", "created_at"}, pgx.CopyFromRows(secrets)); err != nil {
		return fmt.Errorf("write seeds: %w", err)
	}
	return nil
}

// storedSeat is a seat in games.seats, as the projections store it.
type storedSeat struct {
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id,omitempty"`
	Bot      string `json:"bot,omitempty"`
}

// visibility is a row's games.visibility.
func visibility(row projections.GameRow) string {
	if row.Private {
		return play.VisibilityPrivate
	}
	return play.VisibilityPublic
}

// copyReadModels writes the games' rows of every read model as azuld
// holds them once its follower of the log has caught up: games,
// game_seats, turn_inbox and results; the idempotency keys of the keyed
// moves; and the snapshots azuld would have written.
func copyReadModels(ctx context.Context, tx pgx.Tx, games []*Game, ids []pgtype.UUID, format int) error {
	var gameRows, seatRows, inboxRows, resultRows, keyRows, snapshotRows [][]any
	for i, g := range games {
		row := g.Row
		seats := make([]storedSeat, len(row.Seats))
		for j, s := range row.Seats {
			seats[j] = storedSeat{Seat: s.Seat, PlayerID: s.PlayerID, Bot: s.Bot}
			seatRows = append(seatRows, []any{ids[i], int32(s.Seat), optionalUUID(s.PlayerID), s.Bot, row.Status == "finished"})
		}
		options, err := json.Marshal(row.Options)
		if err != nil {
			return fmt.Errorf("write game %s: options: %w", g.ID, err)
		}
		seatsJSON, err := json.Marshal(seats)
		if err != nil {
			return fmt.Errorf("write game %s: seats: %w", g.ID, err)
		}
		var final any
		if row.Final != nil {
			b, err := json.Marshal(row.Final)
			if err != nil {
				return fmt.Errorf("write game %s: final: %w", g.ID, err)
			}
			final = json.RawMessage(b)
			for _, p := range row.Final.Players {
				resultRows = append(resultRows, []any{ids[i], int32(p.Seat), optionalUUID(row.Seats[p.Seat].PlayerID), int32(p.Score), int32(p.Rank), row.LastMoveAt})
			}
		}
		toAct := make([]int32, len(row.ToAct))
		for j, s := range row.ToAct {
			toAct[j] = int32(s)
		}
		gameRows = append(gameRows, []any{ids[i], row.Ruleset, json.RawMessage(options), row.Status, row.Version, toAct,
			json.RawMessage(seatsJSON), optionalUUID(row.CreatedBy), row.CreatedAt, row.LastMoveAt, row.Deadline, final,
			!row.Unrated, visibility(row)})
		seen := map[int]bool{}
		for _, seat := range row.ToAct {
			since, ok := g.Since[seat]
			if !ok || seen[seat] {
				continue
			}
			seen[seat] = true
			inboxRows = append(inboxRows, []any{optionalUUID(row.Seats[seat].PlayerID), ids[i], int32(seat), since, row.Deadline})
		}
		version := int64(0)
		for k, a := range g.Appends {
			if a.Snapshot != nil {
				data, err := g.snapshotData(k)
				if err != nil {
					return err
				}
				snapshotRows = append(snapshotRows, []any{ids[i], int32(format), a.Snapshot.Version, data, a.At})
			}
			if a.Key != nil {
				keyRows = append(keyRows, []any{events.KeyID(a.Key.Scope, a.Key.Key), events.RequestDigest(a.Key.RequestHash), ids[i], version + 1, version + int64(len(a.Events)), a.At})
			}
			version += int64(len(a.Events))
		}
	}
	copies := []struct {
		table   string
		columns []string
		rows    [][]any
	}{
		{"games", []string{"id", "ruleset", "options", "status", "version", "to_act", "seats", "created_by", "created_at", "last_move_at", "deadline", "final", "rated", "visibility"}, gameRows},
		{"game_seats", []string{"game_id", "seat", "player_id", "bot", "finished"}, seatRows},
		{"turn_inbox", []string{"player_id", "game_id", "seat", "since", "deadline"}, inboxRows},
		{"results", []string{"game_id", "seat", "player_id", "score", "rank", "finished_at"}, resultRows},
		{"idempotency_keys", []string{"id", "request_hash", "stream_id", "first_version", "last_version", "created_at"}, keyRows},
		{"snapshots", []string{"stream_id", "format", "version", "data", "created_at"}, snapshotRows},
	}
	for _, c := range copies {
		if len(c.rows) == 0 {
			continue
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.columns, pgx.CopyFromRows(c.rows)); err != nil {
			return fmt.Errorf("write %s: %w", c.table, err)
		}
	}
	return nil
}

// optionalUUID is a player id, or NULL for none.
func optionalUUID(id string) pgtype.UUID {
	u, err := uuid.Parse(id)
	if err != nil {
		return pgtype.UUID{}
	}
	return pgtype.UUID{Bytes: u, Valid: true}
}

// checkFollowerCaughtUp refuses a database whose follower of the log has
// events left to handle: marking the history as followed would skip
// them.
func checkFollowerCaughtUp(ctx context.Context, pool *pgxpool.Pool) error {
	var behind bool
	err := pool.QueryRow(ctx, `
		WITH cp AS (
			SELECT coalesce((SELECT tx_id FROM consumer_checkpoints WHERE name = $1), '0'::xid8) AS tx_id,
			       coalesce((SELECT position FROM consumer_checkpoints WHERE name = $1), 0) AS position)
		SELECT EXISTS (SELECT FROM cp, events e WHERE (e.tx_id, e.global_position) > (cp.tx_id, cp.position))`,
		notify.OutboxConsumer).Scan(&behind)
	if err != nil {
		return fmt.Errorf("check the follower of the log: %w", err)
	}
	if behind {
		return fmt.Errorf("the follower of the log (%s) has events left to handle: start azuld until it has caught up, stop it, then generate", notify.OutboxConsumer)
	}
	return nil
}

// markFollowed moves the checkpoint of azuld's follower of the log past
// every event: the mails, webhooks and bot jobs of the history's old
// moves are never sent.
func markFollowed(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `
		INSERT INTO consumer_checkpoints (name, tx_id, position, updated_at)
		SELECT $1, e.tx_id, e.global_position, $2 FROM events e
		ORDER BY e.tx_id DESC, e.global_position DESC LIMIT 1
		ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position, updated_at = excluded.updated_at
		WHERE (consumer_checkpoints.tx_id, consumer_checkpoints.position) < (excluded.tx_id, excluded.position)`,
		notify.OutboxConsumer, time.Now())
	if err != nil {
		return fmt.Errorf("mark the history as followed: %w", err)
	}
	return nil
}
