package play

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// Take-back events. A request names the version it goes back to and the
// engine events it would undo; consents and refusals answer it; the
// take-back itself restores the state at that version. The undone events
// stay in the log: folding skips them from the take-back on, and the state
// at a version inside the undone branch still shows that branch.
const (
	EvTakebackRequested = "game.takeback_requested"
	EvTakebackAccepted  = "game.takeback_accepted"
	EvTakebackDeclined  = "game.takeback_declined"
	EvTakenBack         = "game.taken_back"
)

// Take-back statuses.
const (
	TakebackPending   = "pending"
	TakebackTakenBack = "taken_back"
	TakebackDeclined  = "declined"
	// TakebackLapsed: a move was made before every consent came in.
	TakebackLapsed = "lapsed"
)

// Errors of take-backs, besides ErrForbidden and ErrNotFound.
var (
	// ErrTakebackConflict: another request is open, or this one is closed.
	ErrTakebackConflict = errors.New("take-back conflict")
	// ErrNothingToTakeBack: the seat has no (or too few) moves since the
	// last random reveal.
	ErrNothingToTakeBack = errors.New("nothing to take back")
)

// MaxTakebackMoves bounds the moves one request may take back.
const MaxTakebackMoves = 20

// Takeback is a take-back request and where it stands.
type Takeback struct {
	// ID is the version of the request event.
	ID    int64 `json:"id"`
	Seat  int   `json:"seat"`
	Moves int   `json:"moves"`
	// ToVersion is the version the game goes back to.
	ToVersion int64 `json:"to_version"`
	// Undo are the versions of the engine events the take-back undoes.
	Undo []int64 `json:"undo"`
	// Needs are the seats whose consent is needed; Consents those that gave it.
	Needs    []int  `json:"needs"`
	Consents []int  `json:"consents"`
	Status   string `json:"status"`
	// DeclinedBy is the seat that declined (the requester: withdrawn).
	DeclinedBy *int `json:"declined_by,omitempty"`
	// TakenBackAt is the version of the game.taken_back event.
	TakenBackAt int64 `json:"taken_back_at,omitempty"`
}

func (t Takeback) clone() Takeback {
	t.Undo, t.Needs, t.Consents = slices.Clone(t.Undo), slices.Clone(t.Needs), slices.Clone(t.Consents)
	return t
}

// takebackRequested is the data of game.takeback_requested.
type takebackRequested struct {
	Seat      int     `json:"seat"`
	Moves     int     `json:"moves"`
	ToVersion int64   `json:"to_version"`
	Undo      []int64 `json:"undo"`
	Needs     []int   `json:"needs"`
}

// takebackAnswer is the data of game.takeback_accepted and _declined.
type takebackAnswer struct {
	Takeback int64 `json:"takeback"`
	Seat     int   `json:"seat"`
}

// takenBack is the data of game.taken_back.
type takenBack struct {
	Takeback  int64   `json:"takeback"`
	ToVersion int64   `json:"to_version"`
	Undone    []int64 `json:"undone"`
}

// PendingTakeback is the open take-back request, or nil.
func (g *Game) PendingTakeback() *Takeback {
	if t := g.fold.pending; t != nil && t.Status == TakebackPending {
		c := t.clone()
		return &c
	}
	return nil
}

// takebackTarget finds where taking back a seat's last moves leads: the
// version before the seat's moves-th last move since the last reveal, and
// the engine events after it.
func (g *Game) takebackTarget(seat, moves int) (int64, []int64, error) {
	tail := g.fold.tail
	found := 0
	var first int64
	for i := len(tail) - 1; i >= 0; i-- {
		start := i == 0 || tail[i-1].batch != tail[i].batch
		if !start || tail[i].seat != seat || tail[i].batch == g.fold.revealCommand {
			continue
		}
		found++
		if found == moves {
			first = tail[i].version
			break
		}
	}
	if found < moves {
		return 0, nil, fmt.Errorf("%w: seat %d has %d move(s) since the last random reveal that can be taken back, not %d",
			ErrNothingToTakeBack, seat, found, moves)
	}
	var undo []int64
	for _, te := range tail {
		if te.version >= first {
			undo = append(undo, te.version)
		}
	}
	return first - 1, undo, nil
}

// consentsNeeded are the seats whose consent a take-back by seat needs:
// every seat held by another human player. Bots consent; seats the
// requesting player holds too consent with the request.
func (g *Game) consentsNeeded(seat int) []int {
	needs := []int{}
	requester := g.Seats[seat].PlayerID
	for i, s := range g.Seats {
		if i == seat || s.Bot != "" || s.PlayerID == "" || s.PlayerID == requester {
			continue
		}
		needs = append(needs, i)
	}
	return needs
}

// applyTakeback folds the take-back events, checking each against the
// state so a forged log does not fold.
func (g *Game) applyTakeback(rec events.Record) error {
	if g.State == nil || g.State.Over() {
		return fmt.Errorf("%w: %s outside a running game", engine.ErrInconsistent, rec.Type)
	}
	switch rec.Type {
	case EvTakebackRequested:
		var r takebackRequested
		if err := json.Unmarshal(rec.Data, &r); err != nil {
			return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
		}
		if g.PendingTakeback() != nil {
			return fmt.Errorf("%w: a take-back is already pending", engine.ErrInconsistent)
		}
		if r.Seat < 0 || r.Seat >= len(g.Seats) || r.Moves < 1 || r.Moves > MaxTakebackMoves {
			return fmt.Errorf("%w: bad take-back request", engine.ErrInconsistent)
		}
		to, undo, err := g.takebackTarget(r.Seat, r.Moves)
		if err != nil {
			return fmt.Errorf("%w: %v", engine.ErrInconsistent, err)
		}
		needs := g.consentsNeeded(r.Seat)
		if to != r.ToVersion || !slices.Equal(undo, r.Undo) || !slices.Equal(needs, r.Needs) {
			return fmt.Errorf("%w: take-back request does not match the game", engine.ErrInconsistent)
		}
		g.fold.pending = &Takeback{ID: rec.Version, Seat: r.Seat, Moves: r.Moves, ToVersion: to,
			Undo: undo, Needs: needs, Consents: []int{}, Status: TakebackPending}
	case EvTakebackAccepted, EvTakebackDeclined:
		var a takebackAnswer
		if err := json.Unmarshal(rec.Data, &a); err != nil {
			return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
		}
		p := g.fold.pending
		if p == nil || p.Status != TakebackPending || p.ID != a.Takeback {
			return fmt.Errorf("%w: take-back %d is not pending", engine.ErrInconsistent, a.Takeback)
		}
		if rec.Type == EvTakebackAccepted {
			if !slices.Contains(p.Needs, a.Seat) || slices.Contains(p.Consents, a.Seat) {
				return fmt.Errorf("%w: seat %d cannot consent to take-back %d", engine.ErrInconsistent, a.Seat, a.Takeback)
			}
			p.Consents = append(p.Consents, a.Seat)
			slices.Sort(p.Consents)
			break
		}
		if a.Seat != p.Seat && !slices.Contains(p.Needs, a.Seat) {
			return fmt.Errorf("%w: seat %d cannot decline take-back %d", engine.ErrInconsistent, a.Seat, a.Takeback)
		}
		p.Status, p.DeclinedBy = TakebackDeclined, &a.Seat
	case EvTakenBack:
		var tb takenBack
		if err := json.Unmarshal(rec.Data, &tb); err != nil {
			return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
		}
		p := g.fold.pending
		if p == nil || p.Status != TakebackPending || p.ID != tb.Takeback || len(p.Consents) != len(p.Needs) {
			return fmt.Errorf("%w: take-back %d is not granted", engine.ErrInconsistent, tb.Takeback)
		}
		if tb.ToVersion != p.ToVersion || !slices.Equal(tb.Undone, p.Undo) {
			return fmt.Errorf("%w: take-back %d does not match its request", engine.ErrInconsistent, tb.Takeback)
		}
		if err := g.rewind(p.ToVersion); err != nil {
			return err
		}
		p.Status, p.TakenBackAt = TakebackTakenBack, rec.Version
	}
	return nil
}

// rewind restores the engine state after version to, which is at or after
// the last reveal: the base refolded with the tail events up to it.
func (g *Game) rewind(to int64) error {
	if to < g.fold.revealVersion {
		return fmt.Errorf("%w: a take-back cannot cross the reveal at version %d", engine.ErrInconsistent, g.fold.revealVersion)
	}
	state := g.fold.base
	kept := g.fold.tail[:0:0]
	for _, te := range g.fold.tail {
		if te.version > to {
			break
		}
		next, err := g.Rules.Evolve(state, te.event)
		if err != nil {
			return fmt.Errorf("refold after take-back: %w", err)
		}
		state = next
		kept = append(kept, te)
	}
	g.State, g.fold.tail = state, kept
	return nil
}

// TakebackResult is what a take-back command appended.
type TakebackResult struct {
	Takeback Takeback        `json:"takeback"`
	Version  int64           `json:"version"`
	Events   []events.Record `json:"events"`
	Game     *Game           `json:"-"`
}

// TakebackRequest asks to take back a seat's last moves.
type TakebackRequest struct {
	GameID string
	Player Player
	// Seat is the requesting seat (nil: the caller's seat that moved last).
	Seat *int
	// Moves is how many of the seat's own moves to take back (default 1).
	Moves   int
	Channel string
}

// RequestTakeback records a take-back request; when no other human seat
// must consent, the take-back happens in the same append.
func (s *Service) RequestTakeback(ctx context.Context, req TakebackRequest) (*TakebackResult, error) {
	res, err := retryOnConflict(func() (*TakebackResult, error) { return s.requestTakeback(ctx, req) })
	return s.namedResult(ctx, res, err)
}

// retryOnConflict runs a take-back command again when another append won
// the race for the game's next version: the command is decided anew on
// the new state (which may refuse it).
func retryOnConflict(f func() (*TakebackResult, error)) (*TakebackResult, error) {
	for range 4 {
		res, err := f()
		if !isConflict(err) {
			return res, err
		}
	}
	return f()
}

// namedResult gives a take-back's resulting game its players' names, for
// display.
func (s *Service) namedResult(ctx context.Context, res *TakebackResult, err error) (*TakebackResult, error) {
	if err != nil || res == nil || res.Game == nil {
		return res, err
	}
	if res.Game, err = s.named(ctx, res.Game); err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Service) requestTakeback(ctx context.Context, req TakebackRequest) (*TakebackResult, error) {
	if req.Moves == 0 {
		req.Moves = 1
	}
	if req.Moves < 1 || req.Moves > MaxTakebackMoves {
		return nil, fmt.Errorf("%w: moves must be from 1 to %d", ErrInvalid, MaxTakebackMoves)
	}
	g, err := s.runningGame(ctx, req.GameID)
	if err != nil {
		return nil, err
	}
	seat, err := takebackSeat(g, req.Player, req.Seat)
	if err != nil {
		return nil, err
	}
	if !g.Takebacks {
		return nil, fmt.Errorf("%w: the game was created without them", ErrTakebacksOff)
	}
	if p := g.PendingTakeback(); p != nil {
		return nil, fmt.Errorf("%w: take-back %d is pending: accept or decline it first", ErrTakebackConflict, p.ID)
	}
	to, undo, err := g.takebackTarget(seat, req.Moves)
	if err != nil {
		return nil, err
	}
	needs := g.consentsNeeded(seat)
	requested, err := serverEvent(EvTakebackRequested, takebackRequested{Seat: seat, Moves: req.Moves, ToVersion: to, Undo: undo, Needs: needs})
	if err != nil {
		return nil, err
	}
	batch := []events.NewEvent{requested}
	if len(needs) == 0 {
		done, err := serverEvent(EvTakenBack, takenBack{Takeback: g.Version + 1, ToVersion: to, Undone: undo})
		if err != nil {
			return nil, err
		}
		batch = append(batch, done)
	}
	return s.appendTakeback(ctx, g, seat, batch, req.Player, req.Channel)
}

// AnswerTakeback consents to (accept) or declines a pending take-back for
// the caller's seats. Consenting again changes nothing; answering a
// closed request is ErrTakebackConflict.
func (s *Service) AnswerTakeback(ctx context.Context, gameID string, id int64, p Player, accept bool, channel string) (*TakebackResult, error) {
	res, err := retryOnConflict(func() (*TakebackResult, error) { return s.answerTakeback(ctx, gameID, id, p, accept, channel) })
	return s.namedResult(ctx, res, err)
}

func (s *Service) answerTakeback(ctx context.Context, gameID string, id int64, p Player, accept bool, channel string) (*TakebackResult, error) {
	g, err := s.game(ctx, gameID)
	if err != nil {
		return nil, err
	}
	t := g.PendingTakeback()
	if t == nil || t.ID != id {
		if last := g.fold.pending; last != nil && last.ID == id {
			return nil, fmt.Errorf("%w: take-back %d is no longer pending: %s", ErrTakebackConflict, id, strings.ReplaceAll(last.Status, "_", " "))
		}
		// Only an older request (or none) has this id: read the log to
		// tell which.
		if err := s.isTakebackRequest(ctx, g, id); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: take-back %d is no longer pending (declined, lapsed or done)", ErrTakebackConflict, id)
	}
	held := g.SeatsOf(p.ID)
	var mine []int
	for _, seat := range held {
		if slices.Contains(t.Needs, seat) {
			mine = append(mine, seat)
		}
	}
	if !accept {
		seat := -1
		switch {
		case slices.Contains(held, t.Seat):
			seat = t.Seat
		case len(mine) > 0:
			seat = mine[0]
		default:
			return nil, fmt.Errorf("%w: only the requester or a seat whose consent is needed may decline", ErrForbidden)
		}
		ev, err := serverEvent(EvTakebackDeclined, takebackAnswer{Takeback: id, Seat: seat})
		if err != nil {
			return nil, err
		}
		return s.appendTakeback(ctx, g, seat, []events.NewEvent{ev}, p, channel)
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("%w: take-back %d does not need your consent", ErrForbidden, id)
	}
	consents := slices.Clone(t.Consents)
	var batch []events.NewEvent
	for _, seat := range mine {
		if slices.Contains(consents, seat) {
			continue
		}
		ev, err := serverEvent(EvTakebackAccepted, takebackAnswer{Takeback: id, Seat: seat})
		if err != nil {
			return nil, err
		}
		batch = append(batch, ev)
		consents = append(consents, seat)
	}
	if len(batch) == 0 {
		// Already consented: nothing new to write.
		return &TakebackResult{Takeback: *t, Version: g.Version, Events: []events.Record{}, Game: g}, nil
	}
	if len(consents) == len(t.Needs) {
		done, err := serverEvent(EvTakenBack, takenBack{Takeback: id, ToVersion: t.ToVersion, Undone: t.Undo})
		if err != nil {
			return nil, err
		}
		batch = append(batch, done)
	}
	return s.appendTakeback(ctx, g, mine[0], batch, p, channel)
}

// Takebacks lists every take-back request of a game, oldest first, with
// how each ended (or that it is pending).
func (s *Service) Takebacks(ctx context.Context, id string) ([]Takeback, error) {
	recs, err := s.Events(ctx, id, 0, 0)
	if err != nil {
		return nil, err
	}
	g := newGame(id)
	out := []Takeback{}
	for _, rec := range recs {
		if err := g.apply(s.rules, rec); err != nil {
			return nil, fmt.Errorf("fold game %s: %w", id, err)
		}
		t := g.fold.pending
		if t == nil {
			continue
		}
		if len(out) == 0 || out[len(out)-1].ID != t.ID {
			out = append(out, Takeback{})
		}
		out[len(out)-1] = t.clone()
	}
	return out, nil
}

// isTakebackRequest checks that version id of the game is a take-back
// request.
func (s *Service) isTakebackRequest(ctx context.Context, g *Game, id int64) error {
	if id < 1 || id > g.Version {
		return fmt.Errorf("%w: no take-back %d in game %s", ErrNotFound, id, g.ID)
	}
	recs, err := s.store.Load(ctx, g.ID, id-1, 1)
	if err != nil {
		return fmt.Errorf("load take-back %d of game %s: %w", id, g.ID, err)
	}
	if len(recs) != 1 || recs[0].Type != EvTakebackRequested {
		return fmt.Errorf("%w: no take-back %d in game %s", ErrNotFound, id, g.ID)
	}
	return nil
}

// runningGame loads a game that is being played.
func (s *Service) runningGame(ctx context.Context, id string) (*Game, error) {
	g, err := s.game(ctx, id)
	if err != nil {
		return nil, err
	}
	switch g.Status {
	case StatusOpen:
		return nil, fmt.Errorf("%w: the game has not started", ErrInvalid)
	case StatusFinished:
		return nil, engine.ErrGameOver
	}
	return g, nil
}

// takebackSeat is the seat a player asks a take-back for: the given one,
// or the player's seat that moved last since the reveal.
func takebackSeat(g *Game, p Player, seat *int) (int, error) {
	held := g.SeatsOf(p.ID)
	if len(held) == 0 {
		return 0, fmt.Errorf("%w: you hold no seat in this game", ErrForbidden)
	}
	if seat != nil {
		if !slices.Contains(held, *seat) {
			return 0, fmt.Errorf("%w: seat %d is not yours", ErrForbidden, *seat)
		}
		return *seat, nil
	}
	for i := len(g.fold.tail) - 1; i >= 0; i-- {
		if slices.Contains(held, g.fold.tail[i].seat) {
			return g.fold.tail[i].seat, nil
		}
	}
	return held[0], nil
}

// appendTakeback appends take-back events by a player's seat and moves
// the bots if the take-back made one due (see botsAfter).
func (s *Service) appendTakeback(ctx context.Context, g *Game, seat int, batch []events.NewEvent, p Player, channel string) (*TakebackResult, error) {
	if channel == "" {
		channel = "api"
	}
	meta := events.Meta{Actor: events.Actor{Kind: "player", PlayerID: p.ID, Seat: &seat}, Channel: channel, CommandID: commandID("")}
	after, res, err := s.appendBatch(ctx, g, batch, meta, "", "", "")
	if err != nil {
		return nil, err
	}
	out := &TakebackResult{Version: after.Version, Events: res.Records, Game: after}
	if t := after.fold.pending; t != nil {
		out.Takeback = t.clone()
	}
	if out.Takeback.Status == TakebackTakenBack {
		if moved, err := s.botsAfter(ctx, after); err == nil {
			out.Game = moved
		} else {
			s.log.WarnContext(ctx, "bot moves failed", "game", g.ID, "err", err)
		}
	}
	return out, nil
}
