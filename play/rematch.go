package play

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// rematchNamespace derives a rematch's game id from the finished game's
// (a name-based UUID): every request for the same game's rematch, on any
// replica and at the same moment, creates the same stream, and the store
// lets only one of them write its first event.
var rematchNamespace = uuid.MustParse("6f1e7c2a-3b9d-5e4f-8a71-2c0d9b4e6a13")

// RematchID is the id the rematch of a game gets.
func RematchID(gameID string) string {
	return uuid.NewSHA1(rematchNamespace, []byte(gameID)).String()
}

// rematchRequest is the game a rematch of old creates: the same rule set,
// options and time control, every seat moved on by one (seat i of old
// sits at seat i+1 mod n), bots of the same kinds and budgets, the
// caller's seats taken at once and every other player's seat reserved for
// them. The seed is never copied: the rematch draws a new secret one, even
// after a game with a public seed (that seed is known; a new public one
// would have to come from whoever chooses seeds).
//
// Every setting a game is created with goes through here: a setting added
// to CreateGame (and game.created) must be carried over in this one
// function.
func rematchRequest(old *Game, caller string) CreateGame {
	n := len(old.Seats)
	seats := make([]SeatSpec, n)
	for i, s := range old.Seats {
		spec := &seats[(i+1)%n]
		switch {
		case s.Bot != "":
			// A bot seat, or the seat of a player who left and a bot
			// played to the end: a bot of that kind again.
			spec.Bot, spec.Budget = s.Bot, s.Budget
		case s.PlayerID == caller:
			spec.Player = caller
		case s.PlayerID != "":
			spec.Reserve = s.PlayerID
		}
	}
	var tc *TimeControl
	if old.TimeControl != nil {
		c := *old.TimeControl
		tc = &c
	}
	// The settings as the old game had them: an unrated private game
	// among friends stays one. (The seed is never copied: a rematch has
	// a secret one, so it could be rated even after a public seed.)
	rated, takebacks := old.Settings.Rated, old.Settings.Takebacks
	return CreateGame{Ruleset: old.Config.Ruleset, Options: old.Config.Options, Seats: seats, TimeControl: tc,
		Rated: &rated, Visibility: old.Settings.Visibility, Takebacks: &takebacks, Chat: old.Settings.Chat}
}

// Rematch gives the rematch of a finished game to one of its players:
// the game rematchRequest describes, created on the first request and
// linked both ways (game.rematch in the old game, rematch_of in the new
// one's game.created). Later requests, by any of its players, get the
// same game with created false. A caller who holds no seat in the game
// gets ErrNotFound, as for a game that does not exist; a game not over
// gets ErrNotFinished. channel is how the request came ("api", "web",
// "email"): the log records it, and a request by mail is answered by mail.
func (s *Service) Rematch(ctx context.Context, gameID string, caller Player, channel string) (g *Game, created bool, err error) {
	old, err := s.game(ctx, gameID)
	if err != nil {
		return nil, false, err
	}
	if len(old.SeatsOf(caller.ID)) == 0 {
		return nil, false, fmt.Errorf("%w: game %s", ErrNotFound, gameID)
	}
	if old.Status != StatusFinished {
		return nil, false, fmt.Errorf("%w: a rematch can be had once the game is over", ErrNotFinished)
	}
	if old.Rematch != "" {
		g, err := s.Game(ctx, old.Rematch)
		return g, false, err
	}
	id := RematchID(old.ID)
	g, err = s.createGame(ctx, caller, rematchRequest(old, caller.ID), "", id, old.ID, channel)
	switch {
	case isConflict(err):
		// Another player's request created it first.
		if g, err = s.Game(ctx, id); err != nil {
			return nil, false, err
		}
		if g.RematchOf != old.ID {
			return nil, false, fmt.Errorf("rematch of game %s: game %s is not its rematch", old.ID, id)
		}
	case err != nil:
		return nil, false, err
	default:
		created = true
	}
	// The link in the old game. A request that created the game and
	// failed here is completed by the next request.
	if err := s.linkRematch(ctx, old, id); err != nil {
		return nil, false, err
	}
	return g, created, nil
}

// linkRematch appends game.rematch to the finished game, once.
func (s *Service) linkRematch(ctx context.Context, old *Game, rematchID string) error {
	for range 5 {
		if old.Rematch != "" {
			return nil
		}
		ev, err := serverEvent(EvRematch, rematchLinked{GameID: rematchID})
		if err != nil {
			return err
		}
		meta := events.Meta{Actor: events.Actor{Kind: "system"}, Channel: "system", CommandID: "rematch:" + rematchID}
		_, _, err = s.appendBatch(ctx, old, []events.NewEvent{ev}, meta, "", "", "")
		if !isConflict(err) {
			return err
		}
		if old, err = s.game(ctx, old.ID); err != nil {
			return err
		}
	}
	return fmt.Errorf("link game %s to its rematch: %w", old.ID, events.ErrConflict)
}

// Decline is a player's no to the seats reserved for them in a rematch:
// the seats become ordinary free seats that anyone may join, and the
// game's creator hears of it (the notification hook). A player with no
// reserved seat in the game gets ErrNotFound when they hold no seat in it
// either, else ErrForbidden. channel is how the answer came.
func (s *Service) Decline(ctx context.Context, gameID string, p Player, channel string) (*Game, error) {
	for range 5 {
		g, err := s.game(ctx, gameID)
		if err != nil {
			return nil, err
		}
		reserved := g.ReservedFor(p.ID)
		if len(reserved) == 0 {
			if len(g.SeatsOf(p.ID)) == 0 {
				return nil, fmt.Errorf("%w: no seat of game %s is reserved for you", ErrNotFound, gameID)
			}
			return nil, fmt.Errorf("%w: no seat of this game is reserved for you", ErrForbidden)
		}
		batch := make([]events.NewEvent, 0, len(reserved))
		for _, seat := range reserved {
			ev, err := serverEvent(EvReservationDeclined, reservationDeclined{Seat: seat, PlayerID: p.ID})
			if err != nil {
				return nil, err
			}
			batch = append(batch, ev)
		}
		meta := events.Meta{Actor: events.Actor{Kind: "player", PlayerID: p.ID, Seat: &reserved[0]}, Channel: channel, CommandID: commandID("")}
		after, _, err := s.appendBatch(ctx, g, batch, meta, "", "", "")
		if isConflict(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return s.named(ctx, after)
	}
	return nil, fmt.Errorf("decline game %s: %w", gameID, events.ErrConflict)
}

// ReservedFor lists the free seats reserved for a player.
func (g *Game) ReservedFor(playerID string) []int {
	var seats []int
	for i, s := range g.Seats {
		if playerID != "" && s.PlayerID == "" && s.Reserved == playerID {
			seats = append(seats, i)
		}
	}
	return seats
}

// Awaiting lists the players whose reserved seats the game waits for, in
// seat order, once each.
func (g *Game) Awaiting() []string {
	var ids []string
	for _, s := range g.Seats {
		if s.PlayerID == "" && s.Reserved != "" && !slices.Contains(ids, s.Reserved) {
			ids = append(ids, s.Reserved)
		}
	}
	return ids
}

// applyRematch folds game.rematch and game.reservation_declined.
func (g *Game) applyRematch(rec events.Record) error {
	switch rec.Type {
	case EvRematch:
		var r rematchLinked
		if err := json.Unmarshal(rec.Data, &r); err != nil {
			return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
		}
		if g.Status != StatusFinished || g.Rematch != "" || r.GameID == "" {
			return fmt.Errorf("%w: a rematch of a game not over, or a second one", engine.ErrInconsistent)
		}
		g.Rematch = r.GameID
	case EvReservationDeclined:
		var d reservationDeclined
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
		}
		return g.freeReserved(d.Seat, d.PlayerID)
	}
	return nil
}

// freeReserved makes a seat reserved for a player an ordinary free seat
// (they declined it, or its invitation expired).
func (g *Game) freeReserved(seat int, playerID string) error {
	if seat < 0 || seat >= len(g.Seats) || g.Seats[seat].PlayerID != "" || g.Seats[seat].Reserved != playerID {
		return fmt.Errorf("%w: seat %d is not reserved for the player whose invitation ended", engine.ErrInconsistent, seat)
	}
	g.Seats[seat].Reserved = ""
	g.Seats[seat].Name = ""
	if !slices.Contains(g.Declined, playerID) {
		g.Declined = append(g.Declined, playerID)
	}
	return nil
}

// ErrReserved: the seat asked for, or every free seat, is kept for
// other players (a rematch). It comes wrapped with ErrForbidden.
var ErrReserved = errors.New("the free seats of this game are reserved for other players")
