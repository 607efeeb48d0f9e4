package play

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
)

// tailEvent is an engine event folded since the last random reveal.
type tailEvent struct {
	version int64
	event   engine.Event
	// batch and seat say which command (and which seat's) caused the
	// event, so a take-back can find a seat's last moves.
	batch string
	seat  int
}

// foldState is the part of a Game that folding needs besides its public
// fields: the engine state at the last random reveal and the engine events
// after it. Take-backs never undo a reveal, so undoing moves only ever
// refolds this short tail.
type foldState struct {
	base engine.State
	tail []tailEvent
	// revealVersion is the version of the last event that revealed random
	// draws (0 before the first deal).
	revealVersion int64
	// snapshotVersion is the version of the last snapshot written or read.
	snapshotVersion int64
	// revealCommand is the batch key of the batch that revealed last: its
	// events after the reveal cannot be taken back without the reveal.
	revealCommand string
	// pending is the latest take-back request: open, or how it closed.
	pending *Takeback
}

// newGame starts an empty game for a stream; records are folded into it.
func newGame(id string) *Game { return &Game{ID: id} }

// clone returns a copy that can be folded further without changing g.
func (g *Game) clone() *Game {
	c := *g
	c.Seats = slices.Clone(g.Seats)
	c.Declined = slices.Clone(g.Declined)
	c.fold.tail = slices.Clone(g.fold.tail)
	if g.fold.pending != nil {
		p := g.fold.pending.clone()
		c.fold.pending = &p
	}
	return &c
}

// foldRecords folds stored records into g in order.
func (g *Game) foldRecords(reg engine.Registry, recs []events.Record) error {
	for _, rec := range recs {
		if err := g.apply(reg, rec); err != nil {
			return fmt.Errorf("game %s version %d (%s): %w", rec.StreamID, rec.Version, rec.Type, err)
		}
	}
	return nil
}

// apply folds one stored record into g.
func (g *Game) apply(reg engine.Registry, rec events.Record) error {
	if rec.Version != g.Version+1 {
		return fmt.Errorf("%w: version %d follows %d", engine.ErrInconsistent, rec.Version, g.Version)
	}
	if rec.Type == EvMessage {
		// Table talk changes no state: not the status, not the time the
		// game last moved (a message must not move a deadline), only the
		// version.
		if err := g.applyMessage(rec); err != nil {
			return err
		}
		g.Version = rec.Version
		return nil
	}
	switch rec.Type {
	case EvGameCreated:
		if g.Version != 0 {
			return fmt.Errorf("%w: game.created is not the first event", engine.ErrInconsistent)
		}
		if err := g.applyCreated(reg, rec); err != nil {
			return err
		}
	case EvSeatJoined:
		var j seatJoined
		if err := json.Unmarshal(rec.Data, &j); err != nil {
			return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
		}
		if j.Seat < 0 || j.Seat >= len(g.Seats) || g.Seats[j.Seat].taken() {
			return fmt.Errorf("%w: seat %d is not free", engine.ErrInconsistent, j.Seat)
		}
		if r := g.Seats[j.Seat].Reserved; r != "" && r != j.PlayerID {
			return fmt.Errorf("%w: seat %d is reserved for another player", engine.ErrInconsistent, j.Seat)
		}
		g.Seats[j.Seat].PlayerID = j.PlayerID
		g.Seats[j.Seat].Imported = projections.ImportedPlayer(j.PlayerID)
		g.Seats[j.Seat].Reserved = ""
		g.Seats[j.Seat].Name = g.nameOf(j.PlayerID)
	case EvSeedRevealed:
		var r seedRevealed
		if err := json.Unmarshal(rec.Data, &r); err != nil {
			return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
		}
		g.Seed = r.Seed
	default:
		if isServerEvent(rec.Type) {
			if err := g.applyServerExtension(rec); err != nil {
				return err
			}
			break
		}
		if err := g.applyEngine(rec); err != nil {
			return err
		}
	}
	g.Version = rec.Version
	g.StateVersion = rec.Version
	g.UpdatedAt = rec.RecordedAt
	g.refreshStatus()
	return nil
}

func (g *Game) applyCreated(reg engine.Registry, rec events.Record) error {
	var c gameCreated
	if err := json.Unmarshal(rec.Data, &c); err != nil {
		return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
	}
	rules, err := reg.Get(c.Config.Ruleset)
	if err != nil {
		return fmt.Errorf("%w: %v", engine.ErrInconsistent, err)
	}
	g.ID = rec.StreamID
	g.Config = c.Config
	g.Rules = rules
	g.Seats = slices.Clone(c.Seats)
	for i := range g.Seats {
		// The upcaster of docs/architecture.md §9: a payload written before names
		// left the log may carry one; it is never used.
		g.Seats[i].Name = g.nameOf(g.Seats[i].Holder())
		g.Seats[i].Left = ""
		// Whatever the payload says: only the id tells.
		g.Seats[i].Imported = projections.ImportedPlayer(g.Seats[i].PlayerID)
	}
	g.TimeControl = c.TimeControl
	g.SeedCommitment = c.SeedCommitment
	g.Seed = c.Seed
	g.Settings = c.settings()
	g.CreatedBy = c.CreatedBy
	g.RematchOf = c.RematchOf
	g.CreatedAt = rec.RecordedAt
	return nil
}

// applyEngine decodes an engine event and evolves the state.
func (g *Game) applyEngine(rec events.Record) error {
	if g.Rules == nil {
		return fmt.Errorf("%w: engine event before game.created", engine.ErrInconsistent)
	}
	ev, err := g.Rules.DecodeEvent(rec.Type, rec.Schema, rec.Data)
	if err != nil {
		return fmt.Errorf("%w: %v", engine.ErrInconsistent, err)
	}
	before := 0
	if g.State != nil {
		before = g.State.Reveals()
	}
	next, err := g.Rules.Evolve(g.State, ev)
	if err != nil {
		return err
	}
	g.State = next
	// Any engine event voids an open take-back request: the game moved on.
	if p := g.fold.pending; p != nil && p.Status == TakebackPending {
		p.Status = TakebackLapsed
	}
	if reveal := next.Reveals() != before; reveal || g.fold.base == nil {
		// A reveal (or game_started) starts a new base that take-backs can
		// never cross.
		g.fold.base, g.fold.tail = next, nil
		g.fold.revealCommand = batchKey(rec.Meta)
		if reveal {
			g.fold.revealVersion = rec.Version
		}
		return nil
	}
	seat := -1
	if rec.Meta.Actor.Seat != nil {
		seat = *rec.Meta.Actor.Seat
	}
	g.fold.tail = append(g.fold.tail, tailEvent{version: rec.Version, event: ev, batch: batchKey(rec.Meta), seat: seat})
	return nil
}

// refreshStatus derives the status from seats and state.
func (g *Game) refreshStatus() {
	switch {
	case g.State == nil:
		g.Status = StatusOpen
	case g.State.Over():
		g.Status = StatusFinished
	default:
		g.Status = StatusActive
	}
	g.Deadline = nil
	if g.Status == StatusActive && g.TimeControl != nil && g.TimeControl.PerMove > 0 {
		d := g.UpdatedAt.Add(time.Duration(g.TimeControl.PerMove))
		g.Deadline = &d
	}
}

// taken reports whether a seat has a player or a bot.
func (s Seat) taken() bool { return s.PlayerID != "" || s.Bot != "" }

// freeSeats lists the seats nobody holds yet.
func (g *Game) freeSeats() []int {
	var free []int
	for i, s := range g.Seats {
		if !s.taken() {
			free = append(free, i)
		}
	}
	return free
}

// applyServerExtension folds server events beyond creation, joining and the
// seed reveal.
func (g *Game) applyServerExtension(rec events.Record) error {
	switch rec.Type {
	case EvTakebackRequested, EvTakebackAccepted, EvTakebackDeclined, EvTakenBack:
		return g.applyTakeback(rec)
	case EvSeatLeft:
		return g.applySeatLeft(rec)
	case EvRematch, EvReservationDeclined:
		return g.applyRematch(rec)
	case EvReservationExpired:
		return g.applyExpired(rec)
	case EvImported:
		// Whatever game.created said: an imported game is not rated. Nor
		// private: its seats belong to nobody here (see anonymise), so
		// nobody could read it; the importer, who had the log, published
		// it by importing it.
		g.Imported, g.Rated = true, false
		g.Visibility = VisibilityPublic
		return nil
	}
	return fmt.Errorf("%w: unknown server event %q", engine.ErrInconsistent, rec.Type)
}

// batchKey identifies the command batch an event belongs to. A client's
// idempotency key is the command id, and two players may pick the same
// key, but one player's key appends at most once per game.
func batchKey(m events.Meta) string {
	return m.CommandID + "\x00" + m.Actor.Kind + "\x00" + m.Actor.PlayerID
}
