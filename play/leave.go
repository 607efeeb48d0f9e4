package play

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/events"
)

// LeftFree: the player of a seat in a game that has not started left it,
// and the seat is free again for someone else to join.
const LeftFree = "free"

// applySeatLeft folds game.seat_left: the seat no longer names its player;
// in a running game a bot holds it from now on (also when it forfeits,
// should the rules not end the game), in an open game it is free again.
// leaveCommand and the player's id are the command id of their leaving
// (an import replaces the id: see anonymise).
const leaveCommand = "leave:"

func (g *Game) applySeatLeft(rec events.Record) error {
	var l seatLeft
	if err := json.Unmarshal(rec.Data, &l); err != nil {
		return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
	}
	if l.Seat < 0 || l.Seat >= len(g.Seats) || g.Seats[l.Seat].PlayerID == "" {
		return fmt.Errorf("%w: seat %d has no player to leave", engine.ErrInconsistent, l.Seat)
	}
	switch l.By {
	case LeftFree:
		if g.State != nil {
			return fmt.Errorf("%w: a seat of a started game cannot become free", engine.ErrInconsistent)
		}
		g.Seats[l.Seat] = Seat{Seat: l.Seat}
	case LeftToBot, LeftForfeit:
		if g.State == nil || !bots.Known(l.Bot) {
			return fmt.Errorf("%w: seat %d left to bot %q before the game started", engine.ErrInconsistent, l.Seat, l.Bot)
		}
		g.Seats[l.Seat] = Seat{Seat: l.Seat, Bot: l.Bot, Left: l.By}
	default:
		return fmt.Errorf("%w: seat %d left by %q", engine.ErrInconsistent, l.Seat, l.By)
	}
	return nil
}

// leaveAttempts bounds the rounds of DeleteAccount: a round that finds
// the player seated again (a join that raced the erasure) leaves again.
const leaveAttempts = 3

// DeleteAccount erases a player: every game the player holds a seat in and
// that is not over goes on without them (LeaveGames), then the account and
// every row that holds their name or address go (in one transaction, see
// erase). Finished games keep their history, which names the player by id
// only; they are shown as FormerPlayer. Deleting an account that does not
// exist is ErrNotFound.
func (s *Service) DeleteAccount(ctx context.Context, playerID string) error {
	p, err := s.Player(ctx, playerID)
	if err != nil {
		return err
	}
	for range leaveAttempts {
		left, err := s.LeaveGames(ctx, p.ID)
		if err != nil {
			return err
		}
		err = s.erase(ctx, p, left)
		if errors.Is(err, errStillSeated) {
			continue
		}
		return err
	}
	return fmt.Errorf("delete account %s: %w", p.ID, errStillSeated)
}

// errStillSeated: the player took a seat while their games were being
// left.
var errStillSeated = errors.New("the player still holds a seat in a running game")

// LeftSeat is a seat a player left.
type LeftSeat struct {
	GameID string
	Seat   int
}

// LeaveGames takes a player out of every game they hold a seat in that is
// not over, through game.seat_left events that name the seat only: in a
// running game a bot plays the seat from now on (the game's time-control
// bot, else greedy), or the seat resigns when the time control says
// on_timeout "forfeit"; in a game that has not started the seat becomes
// free. Every game's history stays complete and verifiable. It returns
// every seat the player held in any game (finished ones included), for
// the erasure of the rows that refer to them.
func (s *Service) LeaveGames(ctx context.Context, playerID string) ([]LeftSeat, error) {
	// The games row's status is written with each append (game_seats'
	// finished mark may lag behind): only the games not over are loaded.
	rows, err := s.pool.Query(ctx, `SELECT s.game_id::text, s.seat, g.status <> 'finished'
		FROM game_seats s JOIN games g ON g.id = s.game_id WHERE s.player_id = $1 ORDER BY s.game_id, s.seat`, playerID)
	if err != nil {
		return nil, fmt.Errorf("find the games of player %s: %w", playerID, err)
	}
	var seats []LeftSeat
	var games []string
	for rows.Next() {
		var seat LeftSeat
		var running bool
		if err := rows.Scan(&seat.GameID, &seat.Seat, &running); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find the games of player %s: %w", playerID, err)
		}
		seats = append(seats, seat)
		if running && !slices.Contains(games, seat.GameID) {
			games = append(games, seat.GameID)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find the games of player %s: %w", playerID, err)
	}
	for _, id := range games {
		if err := s.leaveGame(ctx, id, playerID); err != nil {
			return nil, err
		}
	}
	if err := s.declineReservations(ctx, playerID); err != nil {
		return nil, err
	}
	return seats, nil
}

// declineReservations declines the seats rematches keep for a player who
// leaves: each becomes a free seat, as if they had declined it, so that
// no rematch waits for an account that is gone.
func (s *Service) declineReservations(ctx context.Context, playerID string) error {
	kept, err := json.Marshal([]map[string]string{{"reserved": playerID}})
	if err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, `SELECT id::text FROM games WHERE status = 'open' AND seats @> $1::jsonb`, string(kept))
	if err != nil {
		return fmt.Errorf("find the rematches kept for player %s: %w", playerID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("find the rematches kept for player %s: %w", playerID, err)
	}
	for _, id := range ids {
		_, err := s.Decline(ctx, id, Player{ID: playerID}, "system")
		if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrForbidden) {
			return err
		}
	}
	return nil
}

// leaveGame takes a player out of one game (retried when another append
// wins the race for the game's next version).
func (s *Service) leaveGame(ctx context.Context, gameID, playerID string) error {
	for range 5 {
		err := s.leaveGameOnce(ctx, gameID, playerID)
		if !isConflict(err) {
			return err
		}
	}
	return fmt.Errorf("leave game %s: %w", gameID, events.ErrConflict)
}

func (s *Service) leaveGameOnce(ctx context.Context, gameID, playerID string) error {
	g, err := s.game(ctx, gameID)
	if err != nil {
		return err
	}
	held := g.SeatsOf(playerID)
	if len(held) == 0 || g.Status == StatusFinished {
		return nil
	}
	by, bot := LeftToBot, bots.Greedy
	if tc := g.TimeControl; tc != nil {
		if tc.Bot != "" && bots.Quick(tc.Bot) {
			// A searching bot thinks for seconds on a job worker; the
			// stand-in of a player who left moves at once, like the time
			// control's greedy default.
			bot = tc.Bot
		}
		if tc.OnTimeout == "forfeit" {
			by = LeftForfeit
		}
	}
	if g.Status == StatusOpen {
		by, bot = LeftFree, ""
	}
	batch := make([]events.NewEvent, 0, len(held))
	for _, seat := range held {
		ev, err := serverEvent(EvSeatLeft, seatLeft{Seat: seat, By: by, Bot: bot})
		if err != nil {
			return err
		}
		batch = append(batch, ev)
	}
	meta := events.Meta{Actor: events.Actor{Kind: "system"}, Channel: "system", CommandID: leaveCommand + playerID}
	after, _, err := s.appendBatch(ctx, g, batch, meta, "", "", "")
	if err != nil {
		return fmt.Errorf("leave game %s: %w", gameID, err)
	}
	if by == LeftForfeit {
		if after, err = s.forfeit(ctx, after, held[0]); err != nil {
			return err
		}
	}
	if _, err := s.botsAfter(ctx, after); err != nil {
		s.log.WarnContext(ctx, "bot moves after a player left failed", "game", gameID, "err", err)
	}
	return nil
}

// erase deletes the player's account and every row that holds their name
// or address, in one transaction; it fails with errStillSeated (and
// changes nothing) if the player took a seat in a running game meanwhile.
// Rows that only hold the player's id (the log, finished games' seats and
// results, idempotency keys) stay: an id names nobody once the account is
// gone.
func (s *Service) erase(ctx context.Context, p Player, seats []LeftSeat) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("erase player %s: begin: %w", p.ID, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// Locking the row first makes a concurrent erasure of the same player
	// wait, then find nothing to delete.
	var found bool
	if err := tx.QueryRow(ctx, `SELECT true FROM players WHERE id = $1 FOR UPDATE`, p.ID).Scan(&found); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: player %s", ErrNotFound, p.ID)
		}
		return fmt.Errorf("erase player %s: %w", p.ID, err)
	}
	var seated bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM game_seats s JOIN games g ON g.id = s.game_id
		WHERE s.player_id = $1 AND g.status <> 'finished')`, p.ID).Scan(&seated); err != nil {
		return fmt.Errorf("erase player %s: %w", p.ID, err)
	}
	if seated {
		return errStillSeated
	}
	games := make([]string, 0, len(seats))
	numbers := make([]int32, 0, len(seats))
	for _, seat := range seats {
		games = append(games, seat.GameID)
		numbers = append(numbers, int32(seat.Seat))
	}
	b := &pgx.Batch{}
	// Jobs addressed to the player (mails, sign-in links, webhooks) go;
	// their arguments and errors hold the address. A mail to another seat
	// of the player's games may name them as the inviter or the requester
	// of a take-back: that name becomes FormerPlayer.
	b.Queue(`DELETE FROM river_job WHERE args->>'player_id' = $1 OR args->>'to' = nullif($2::text, '')
		OR args->>'webhook_id' IN (SELECT id::text FROM webhooks WHERE player_id = $1::uuid)`, p.ID, p.Email)
	for _, field := range []string{"inviter", "requester"} {
		b.Queue(`UPDATE river_job SET args = jsonb_set(args, ARRAY[$1::text], to_jsonb($2::text))
			WHERE args->>$1 = $3 AND args->>'game_id' = ANY($4::text[])`, field, FormerPlayer, p.Name, games)
	}
	// The delivery log records the address (or the webhook's URL) each
	// attempt went to.
	b.Queue(`DELETE FROM deliveries WHERE target = nullif($1::text, '') OR strpos(detail, nullif($1::text, '')) > 0
		OR target IN (SELECT url FROM webhooks WHERE player_id = $2)`, p.Email, p.ID)
	// The secrets of the reply addresses of the player's seats: no
	// personal data, but nobody may act for the seats by mail any more.
	b.Queue(`DELETE FROM mail_tokens t USING unnest($1::uuid[], $2::int[]) AS s (game_id, seat)
		WHERE t.game_id = s.game_id AND t.seat = s.seat`, games, numbers)
	b.Queue(`DELETE FROM turn_inbox WHERE player_id = $1`, p.ID)
	// The account itself; its webhooks, browser sessions and sign-in
	// links go with it (ON DELETE CASCADE).
	b.Queue(`DELETE FROM players WHERE id = $1`, p.ID)
	// Every replica's cache of authenticated tokens is emptied when this
	// shared generation moves (account.RaiseGeneration), so the deleted
	// account's tokens stop working everywhere within a second.
	b.Queue(`UPDATE auth_generation SET generation = generation + 1`)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("erase player %s: %w", p.ID, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("erase player %s: commit: %w", p.ID, err)
	}
	return nil
}

// forfeit resigns a seat whose player left a game that forfeits, as the
// system, in a command of its own that the log records like a
// deadline's forfeit. The bot that holds the seat meanwhile, or another
// player, may move first: the resign is then tried again on the game as
// it is, since resigning stays legal while the game runs.
func (s *Service) forfeit(ctx context.Context, g *Game, seat int) (*Game, error) {
	for range 5 {
		if g.Status != StatusActive {
			return g, nil
		}
		res, err := s.moveOnce(ctx, g, MoveRequest{
			GameID: g.ID, Actor: events.Actor{Kind: "system"}, Seat: &seat,
			Notation: "resign", Channel: "system",
		})
		if err == nil {
			return res.Game, nil
		}
		if !isConflict(err) {
			return g, fmt.Errorf("forfeit seat %d of game %s: %w", seat, g.ID, err)
		}
		if g, err = s.game(ctx, g.ID); err != nil {
			return nil, err
		}
	}
	return g, fmt.Errorf("forfeit seat %d of game %s: %w", seat, g.ID, events.ErrConflict)
}
