// Package history fills a database with a history of games: finished and
// running games of every rule set, played by the engine's bots, with real
// secret seeds and their commitments, and the same events, metadata,
// secrets, idempotency keys and read-model rows azuld writes when the
// games are played through it. It writes them fast (COPY, many games per
// transaction) so that azuld's costs can be measured at the size of a
// busy server's history (issue #22).
//
// A game is first played in memory (PlayGame), append by append as
// play.Service would append it, then written. Every event of one append
// shares a transaction, as in azuld: appends are written in layers (the
// k-th append of every game of a batch in one transaction), so that the
// events' tx_id groups and orders them as the live server's commits do,
// and the projections' rebuild finds each append as one batch.
package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// Spec is one game to play.
type Spec struct {
	ID     string
	Config engine.Config
	// Seats are the seats in order: a player id or a bot kind each
	// (Seat.Seat is set from the index).
	Seats []play.Seat
	// Creator is the player who creates the game (a player id).
	Creator string
	Seed    engine.Seed
	// PublicSeed writes the seed into game.created (a game created with a
	// chosen seed); otherwise it is secret and revealed at the end.
	PublicSeed bool
	// JoinSeat >= 0 creates the game with that seat free; its player
	// joins in a second append, which starts the game. -1: every seat is
	// taken at creation.
	JoinSeat int
	// Mover chooses the players' moves: a bot kind (bots.Greedy or
	// bots.Random). Bot seats always move as azuld moves them.
	Mover string
	// Keyed is the share of the players' moves sent with an
	// Idempotency-Key (0 to 1).
	Keyed float64
	// Start is when the game is created; Gap the mean time between a
	// player's moves.
	Start time.Time
	Gap   time.Duration
	// Rand draws the times, channels and keys; nil: a fixed source.
	Rand *rand.Rand
}

// Append is one append of a game: the events one command caused.
type Append struct {
	At     time.Time
	Meta   events.Meta
	Events []events.NewEvent
	// Key is the idempotency key the command was sent with, if any.
	Key *IdempotencyKey
	// Snapshot is the snapshot azuld writes after the append, if any.
	Snapshot *Snapshot
	// toAct are the seats to act after the append.
	toAct []int
	// active: the game is running after the append.
	active bool
}

// Snapshot is a snapshot of the game after an append, as play.Service
// writes one: every SnapshotEvery events, at a random reveal (where no
// take-back can reach behind it). Its data is built when the game's times
// are final (see Game.snapshotData).
type Snapshot struct {
	Version       int64
	State         json.RawMessage
	RevealVersion int64
	Status        string
	// Seed is the seed once revealed (or public).
	Seed string
}

// IdempotencyKey is a row of idempotency_keys.
type IdempotencyKey struct {
	Scope, Key, RequestHash string
}

// Game is a game played in memory, ready to be written.
type Game struct {
	ID      string
	Seed    engine.Seed
	Appends []Append
	// Row is the game's read-model row after its last append, folded by
	// play (as `azuld projections rebuild` folds it).
	Row projections.GameRow
	// Since is, for each human seat to act, when its turn began.
	Since map[int]time.Time

	config     engine.Config
	seats      []play.Seat
	creator    string
	commitment string
	// publicSeed: the seed was written into game.created.
	publicSeed bool
}

// Records are the game's events as stored records (positions unset).
func (g *Game) Records() []events.Record {
	var recs []events.Record
	for _, a := range g.Appends {
		for _, e := range a.Events {
			recs = append(recs, events.Record{
				StreamID: g.ID, Version: int64(len(recs) + 1), Type: e.Type, Schema: e.Schema,
				Data: e.Data, Meta: a.Meta, RecordedAt: a.At,
			})
		}
	}
	return recs
}

// Events is how many events the game has.
func (g *Game) Events() int {
	n := 0
	for _, a := range g.Appends {
		n += len(a.Events)
	}
	return n
}

// maxAppends bounds a game (a long four-player game has a few hundred).
const maxAppends = 5000

// errNoCut: a game that should stay running has no point at which a
// player is to act.
var errNoCut = errors.New("the game never waits for a player")

// PlayGame plays a whole game as azuld would record it, with players'
// moves chosen by spec.Mover and bot seats moved as azuld's bots move
// them (after each command, the first bot seat to act, with the game's
// version as the salt).
func PlayGame(reg engine.Registry, spec Spec) (*Game, error) {
	rules, err := reg.Get(spec.Config.Ruleset)
	if err != nil {
		return nil, err
	}
	rng := spec.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 2))
	}
	if spec.Gap <= 0 {
		spec.Gap = 30 * time.Minute
	}
	seats := slices.Clone(spec.Seats)
	for i := range seats {
		seats[i].Seat = i
	}
	startEvents, err := rules.Start(spec.Config, spec.Seed)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Config.Ruleset, err)
	}
	start, err := play.EngineEvents(startEvents)
	if err != nil {
		return nil, err
	}
	// A game created with a seat free, or every seat taken, with the
	// settings of a request that chose none.
	created := play.GameCreation{Config: spec.Config, Seats: seats, Seed: spec.Seed, PublicSeed: spec.PublicSeed,
		Settings: play.DefaultSettings(spec.PublicSeed), CreatedBy: spec.Creator}
	if spec.JoinSeat >= 0 {
		created.Seats = slices.Clone(seats)
		created.Seats[spec.JoinSeat].PlayerID = ""
	}
	first, err := play.CreatedEvent(created)
	if err != nil {
		return nil, err
	}
	g := &Game{ID: spec.ID, Seed: spec.Seed, config: spec.Config, seats: seats, creator: spec.Creator, commitment: spec.Seed.Commitment(), publicSeed: spec.PublicSeed}
	publicSeed := ""
	if spec.PublicSeed {
		publicSeed = spec.Seed.String()
	}
	fold := tracker{rules: rules, seed: publicSeed}
	at := spec.Start
	creatorMeta := events.Meta{Actor: events.Actor{Kind: "player", PlayerID: spec.Creator}, Channel: "api", CommandID: uuid.NewString()}
	var state engine.State
	if spec.JoinSeat < 0 {
		g.Appends = append(g.Appends, Append{At: at, Meta: creatorMeta, Events: append([]events.NewEvent{first}, start...)})
	} else {
		g.Appends = append(g.Appends, Append{At: at, Meta: creatorMeta, Events: []events.NewEvent{first}})
		joined, err := play.JoinedEvent(spec.JoinSeat, seats[spec.JoinSeat].PlayerID)
		if err != nil {
			return nil, err
		}
		at = at.Add(gap(rng, spec.Gap))
		seat := spec.JoinSeat
		joinMeta := events.Meta{Actor: events.Actor{Kind: "player", PlayerID: seats[seat].PlayerID, Seat: &seat}, Channel: "api", CommandID: uuid.NewString()}
		g.Appends = append(g.Appends, Append{At: at, Meta: joinMeta, Events: append([]events.NewEvent{joined}, start...)})
	}
	if err := fold.events(startEvents, int64(g.Events()-len(start))); err != nil {
		return nil, fmt.Errorf("fold the start: %w", err)
	}
	state = fold.state
	last := &g.Appends[len(g.Appends)-1]
	last.toAct, last.active = state.ToAct(), !state.Over()
	version := int64(g.Events())
	last.Snapshot, err = fold.snapshot(version)
	if err != nil {
		return nil, err
	}
	for !state.Over() {
		if len(g.Appends) >= maxAppends {
			return nil, fmt.Errorf("game %s: still running after %d appends", g.ID, maxAppends)
		}
		seat, kind := mover(state.ToAct(), seats)
		a := Append{}
		var move engine.Move
		if kind != "" {
			// As azuld's bots move: right after the command that made
			// them due.
			move, err = bots.Choose(kind, state, seat, uint64(version))
			at = at.Add(time.Duration(5+rng.IntN(40)) * time.Millisecond)
			a.Meta = events.Meta{Actor: events.Actor{Kind: "bot", Bot: kind, Seat: &seat}, Channel: "bot"}
		} else {
			move, err = bots.Choose(spec.Mover, state, seat, uint64(version)*31+uint64(seat))
			at = at.Add(gap(rng, spec.Gap))
			a.Meta = events.Meta{Actor: events.Actor{Kind: "player", PlayerID: seats[seat].PlayerID, Seat: &seat}, Channel: channel(rng)}
		}
		if err != nil {
			return nil, fmt.Errorf("game %s: choose a move for seat %d: %w", g.ID, seat, err)
		}
		// The engine's canonical forms of the command, which the server
		// writes after reading the move back (the tests compare them with
		// the server's).
		cmd, canonical := move.Command, []byte(move.JSON)
		decided, err := rules.Decide(state, seat, cmd, spec.Seed)
		if err != nil {
			return nil, fmt.Errorf("game %s: seat %d plays %s: %w", g.ID, seat, canonical, err)
		}
		if a.Events, err = play.EngineEvents(decided); err != nil {
			return nil, err
		}
		if err := fold.events(decided, version); err != nil {
			return nil, fmt.Errorf("game %s: fold %s: %w", g.ID, canonical, err)
		}
		state = fold.state
		if state.Over() && !spec.PublicSeed {
			reveal, err := play.SeedRevealedEvent(spec.Seed)
			if err != nil {
				return nil, err
			}
			a.Events = append(a.Events, reveal)
			fold.seed = spec.Seed.String()
		}
		a.Meta.CommandID = uuid.NewString()
		if kind == "" && rng.Float64() < spec.Keyed {
			key := uuid.NewString()
			a.Meta.CommandID = key
			scope, hash := play.MoveKey(g.ID, a.Meta.Actor, seat, canonical)
			a.Key = &IdempotencyKey{Scope: scope, Key: key, RequestHash: hash}
		}
		a.Meta.Command, a.Meta.Notation = canonical, move.Notation
		a.At, a.toAct, a.active = at, state.ToAct(), !state.Over()
		version += int64(len(a.Events))
		if a.Snapshot, err = fold.snapshot(version); err != nil {
			return nil, err
		}
		g.Appends = append(g.Appends, a)
	}
	return g, nil
}

// snapshotEvery is how many events azuld lets pass between snapshots
// (azuld serve keeps play's default).
const snapshotEvery = play.DefaultSnapshotEvery

// tracker follows a game's engine state as play folds it: the version of
// the last random reveal, whether engine events followed it, and the last
// snapshot.
type tracker struct {
	rules         engine.Rules
	state         engine.State
	revealVersion int64
	// tail: engine events follow the last reveal (no snapshot then).
	tail bool
	// snapshotVersion is the version of the last snapshot.
	snapshotVersion int64
	seed            string
}

// events folds engine events that follow version.
func (f *tracker) events(evs []engine.Event, version int64) error {
	for i, e := range evs {
		before := 0
		if f.state != nil {
			before = f.state.Reveals()
		}
		next, err := f.rules.Evolve(f.state, e)
		if err != nil {
			return err
		}
		first := f.state == nil
		f.state = next
		switch reveal := next.Reveals() != before; {
		case reveal:
			f.revealVersion, f.tail = version+int64(i)+1, false
		case first:
			f.tail = false
		default:
			f.tail = true
		}
	}
	return nil
}

// snapshot is the snapshot play writes at version, if it writes one.
func (f *tracker) snapshot(version int64) (*Snapshot, error) {
	if f.state == nil || f.tail || version-f.snapshotVersion < snapshotEvery {
		return nil, nil
	}
	state, err := f.state.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	f.snapshotVersion = version
	status := play.StatusActive
	if f.state.Over() {
		status = play.StatusFinished
	}
	return &Snapshot{Version: version, State: state, RevealVersion: f.revealVersion, Status: status, Seed: f.seed}, nil
}

// snapshotData encodes the snapshot taken after the i-th append.
func (g *Game) snapshotData(i int) ([]byte, error) {
	s := g.Appends[i].Snapshot
	// Every seat is taken by then (a snapshot needs a started game).
	view := &play.Game{
		// A generated game has no table talk: its last move is its version.
		ID: g.ID, Config: g.config, Status: s.Status, Version: s.Version, StateVersion: s.Version, Seats: slices.Clone(g.seats),
		SeedCommitment: g.commitment, Seed: s.Seed, Settings: play.DefaultSettings(g.publicSeed), CreatedBy: g.creator,
		CreatedAt: g.Appends[0].At, UpdatedAt: g.Appends[i].At,
	}
	return play.SnapshotData(view, s.State, s.RevealVersion)
}

// mover is the seat that moves next and its bot kind ("" for a player):
// a bot seat to act first, as azuld moves its bots within the command
// that made them due, else the first player to act.
func mover(toAct []int, seats []play.Seat) (int, string) {
	for _, s := range toAct {
		if seats[s].Bot != "" {
			return s, seats[s].Bot
		}
	}
	return toAct[0], ""
}

// cut keeps the game's appends up to a random point after which it is
// running and waits for players only, no bot: a game still being played.
func (g *Game) cut(rng *rand.Rand, seats []play.Seat) error {
	var points []int
	for i, a := range g.Appends {
		// Never where a bot is to act: azuld moves its bots at once.
		if a.active && slices.ContainsFunc(a.toAct, func(s int) bool { return seats[s].PlayerID != "" }) &&
			!slices.ContainsFunc(a.toAct, func(s int) bool { return seats[s].Bot != "" }) {
			points = append(points, i)
		}
	}
	if len(points) == 0 {
		return errNoCut
	}
	g.Appends = g.Appends[:points[rng.IntN(len(points))]+1]
	return nil
}

// finish folds the game's row through play and finds when each human
// seat to act began its turn.
func (g *Game) finish(ctx context.Context, folder *play.Service, seats []play.Seat) error {
	row, err := folder.FoldRow(ctx, g.ID, g.Records())
	if err != nil {
		return fmt.Errorf("fold game %s: %w", g.ID, err)
	}
	g.Row = row
	g.Since = map[int]time.Time{}
	last := len(g.Appends) - 1
	for _, seat := range g.Appends[last].toAct {
		if seats[seat].PlayerID == "" || !g.Appends[last].active {
			continue
		}
		since := g.Appends[last].At
		for i := last - 1; i >= 0 && g.Appends[i].active && slices.Contains(g.Appends[i].toAct, seat); i-- {
			since = g.Appends[i].At
		}
		g.Since[seat] = since
	}
	return nil
}

// gap is a time between two moves: uniform around mean, at least a
// second.
func gap(rng *rand.Rand, mean time.Duration) time.Duration {
	return time.Second + time.Duration(rng.Int64N(int64(2*mean)))
}

// channel is the channel a player's move came through.
func channel(rng *rand.Rand) string {
	switch n := rng.IntN(10); {
	case n < 6:
		return "api"
	case n < 9:
		return "web"
	}
	return "cli"
}
