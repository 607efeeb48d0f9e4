// Package bots chooses moves for bot seats. Bots are pure: given a state,
// a seat, a salt and (for the search bot) a budget in playouts they always
// choose the same move, so a game with bots replays exactly. A time budget
// trades that for a bound on the thinking time.
//
// A bot sees only what a player at the table sees: the state a bot is
// given holds the tiles by place and colour (what every player can count)
// but neither the game's seed nor the order of the tiles in the bag, and
// the bots draw whatever they imagine from generators of their own.
//
// Both the greedy and the search bot judge positions by an estimate of
// each seat's final score. In Summer Pavilion (pavilion_eval.go) it weighs
// what a strong player does: the score (the first-player token's cost in
// it); what the hand will become this round, by a short plan that places
// the tiles the way a careful player would (the most points per tile
// first: the run, the bonus tiles of the windows, statues and pillars it
// completes, the steps towards the star and numbered-space bonuses), the
// wild colour standing in; the tiles the plan cannot place, kept (up to
// four) or lost at a point each; wilds taken; kept tiles, those of the next
// round's wild colour more; bonus tiles due; completed stars and "all 1s …
// 4s" bonuses in full, partial ones by progress and by whether the rounds
// left can still bring the tiles their empty spaces cost; and, while tiles
// are taken, the best take left to the next seat (denying it what it
// needs). Greedy plays the move whose result it estimates best. Search
// tries its own best moves by the estimate against the other seats' greedy
// replies, steers its playouts with a heuristic policy (the same plan's gains,
// takes by the tiles that have a space to go to), cuts them at the round's
// end and takes the estimate as their value (a lead there counting as the
// chance of winning it gives, with the rounds still to play), and plays its
// own choice over the estimate's when its playouts rate it a point better.
//
// The checklist bot is a yardstick for measuring them (cmd/azul-tournament),
// not a seat's choice: a one-move lookahead by a player's checklist written
// apart from that estimate.
package bots

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
)

// The bot kinds.
const (
	// Random picks uniformly among the legal moves.
	Random = "random"
	// Greedy plays the move with the best immediate gain: points now and
	// at the round's end, minus floor and discard penalties, with small
	// terms for progress towards end bonuses to break ties.
	Greedy = "greedy"
	// Search is Monte Carlo tree search over determinised draws, within a
	// budget of playouts or time.
	Search = "search"
	// Checklist is the yardstick the Summer Pavilion bots are measured
	// against (cmd/azul-tournament): a one-move lookahead that judges moves
	// by a player's checklist, independent of the greedy estimate. It is
	// not a kind a seat may hold; in Azul Mini it plays as greedy.
	Checklist = "checklist"
)

// Search budgets.
const (
	// DefaultBudget is the search bot's thinking time when none is given.
	DefaultBudget = 200 * time.Millisecond
	// MaxBudget is the longest thinking time a seat may ask for.
	MaxBudget = 2 * time.Second
	// MinBudget is the shortest.
	MinBudget = 10 * time.Millisecond
)

// Kinds lists the bot kinds a seat may hold: random, greedy, search and
// the levels, weakest first.
func Kinds() []string { return append([]string{Random, Greedy, Search}, Levels()...) }

// Known reports whether kind is a bot kind a seat may hold.
func Known(kind string) bool { return slices.Contains(Kinds(), kind) }

// Quick reports whether a bot kind chooses in microseconds, without a
// search (random, greedy, levels 1–3), so that a command may move it
// within the request that brings its turn. The others search for up to
// their budget and move from a job worker only.
func Quick(kind string) bool {
	switch kind {
	case Random, Greedy, Level1, Level2, Level3:
		return true
	}
	return false
}

// Level is the level a kind names, 1–6, and 0 for a kind that is no
// level.
func Level(kind string) int { return levelOf(kind) }

// ErrNoMove is returned when the seat has no legal move.
var ErrNoMove = errors.New("no legal move")

// ErrBadBot is returned for an unknown kind or a budget out of bounds.
var ErrBadBot = errors.New("bad bot")

// Bot is a bot kind with its budget.
type Bot struct {
	Kind string
	// Budget is the search bot's thinking time per move (DefaultBudget
	// when zero and Playouts is zero too).
	Budget time.Duration
	// Playouts, when positive, bounds the search by playouts instead of
	// time, which makes its choice reproducible (tests, tournaments). Of
	// the levels only level 6 takes it (levels 1–5 have a budget of
	// their own in playouts).
	Playouts int
}

// ParseBudget reads a search budget such as "200ms" or "1s" and checks it
// against MinBudget and MaxBudget.
func ParseBudget(text string) (time.Duration, error) {
	d, err := time.ParseDuration(text)
	if err != nil {
		return 0, fmt.Errorf("%w: budget %q: a duration such as \"200ms\" or \"1s\"", ErrBadBot, text)
	}
	if d < MinBudget || d > MaxBudget {
		return 0, fmt.Errorf("%w: budget %s: between %s and %s", ErrBadBot, d, MinBudget, MaxBudget)
	}
	return d, nil
}

// Check reports whether the bot is a known kind with a budget in bounds.
func (b Bot) Check() error {
	if !Known(b.Kind) && b.Kind != Checklist {
		return fmt.Errorf("%w: unknown bot %q (bots: random, greedy, search, level1 … level6)", ErrBadBot, b.Kind)
	}
	switch {
	case b.Kind == Level6 && b.Budget != 0:
		return fmt.Errorf("%w: level 6 thinks for the default budget (a playout bound only, for measuring)", ErrBadBot)
	case b.Kind != Search && b.Kind != Level6 && (b.Budget != 0 || b.Playouts != 0):
		return fmt.Errorf("%w: only the search bot takes a budget", ErrBadBot)
	}
	if b.Budget != 0 && (b.Budget < MinBudget || b.Budget > MaxBudget) {
		return fmt.Errorf("%w: budget %s: between %s and %s", ErrBadBot, b.Budget, MinBudget, MaxBudget)
	}
	if b.Playouts < 0 {
		return fmt.Errorf("%w: negative playouts", ErrBadBot)
	}
	return nil
}

// Choose returns the move a bot of the given kind makes for seat, the
// search bot with its default budget. The salt (e.g. the game's version)
// varies the choice between turns.
func Choose(kind string, s engine.State, seat int, salt uint64) (engine.Move, error) {
	return Bot{Kind: kind}.Choose(s, seat, salt)
}

// Choose returns the move the bot makes for seat in s.
func (b Bot) Choose(s engine.State, seat int, salt uint64) (engine.Move, error) {
	if s == nil {
		return engine.Move{}, fmt.Errorf("%w: the game has not started", ErrNoMove)
	}
	if err := b.Check(); err != nil {
		return engine.Move{}, err
	}
	switch b.Kind {
	case Random:
		// Bots never resign.
		moves := slices.DeleteFunc(s.LegalMoves(seat), func(m engine.Move) bool { return m.Notation == "resign" })
		if len(moves) == 0 {
			return engine.Move{}, fmt.Errorf("%w for seat %d", ErrNoMove, seat)
		}
		rng := rand.New(rand.NewPCG(salt, uint64(seat)+0x9e3779b97f4a7c15))
		return moves[rng.IntN(len(moves))], nil
	}
	switch st := s.(type) {
	case *azul.State:
		return choose(azulFamily{}, st, seat, b, salt)
	case *pavilion.State:
		if b.Kind == Checklist && !st.Over() {
			c, ok := checklist(st, seat)
			if !ok {
				return engine.Move{}, fmt.Errorf("%w for seat %d", ErrNoMove, seat)
			}
			return engine.NewMove(c), nil
		}
		return choose(pavilionFamily{}, st, seat, b, salt)
	}
	return engine.Move{}, fmt.Errorf("%w: the %s bot does not know %T", ErrBadBot, b.Kind, s)
}

// command is what a typed move needs to become an engine.Move.
type command interface {
	comparable
	engine.Command
}

func choose[S any, C command, E any, F family[S, C, E]](f F, s *S, seat int, b Bot, salt uint64) (engine.Move, error) {
	if f.over(s) {
		return engine.Move{}, fmt.Errorf("%w: the game is over", ErrNoMove)
	}
	legal := f.legal(nil, s, seat)
	switch {
	case len(legal) == 0:
		return engine.Move{}, fmt.Errorf("%w for seat %d", ErrNoMove, seat)
	case len(legal) == 1:
		return engine.NewMove(legal[0]), nil
	}
	if lv := levelOf(b.Kind); lv > 0 {
		return engine.NewMove(chooseLevel(f, s, seat, legal, lv, b, salt)), nil
	}
	if b.Kind == Greedy || b.Kind == Checklist {
		c, _ := greedy(f, s, seat)
		return engine.NewMove(c), nil
	}
	if f.actor(s) != seat {
		// Grey-wall tiling: several seats choose at once and the tree
		// follows the lowest; choose among this seat's own moves greedily.
		c, _ := greedy(f, s, seat)
		return engine.NewMove(c), nil
	}
	x := newSearcher(f, s, salt^uint64(seat)<<56)
	x.run(b.playouts(), b.deadline())
	c, ok := x.best()
	if !ok {
		c, _ = greedy(f, s, seat)
	}
	return engine.NewMove(c), nil
}

// playouts is the playout bound of a search (a large one under a time
// budget).
func (b Bot) playouts() int {
	if b.Playouts > 0 {
		return b.Playouts
	}
	return 1 << 30
}

// deadline is when a timed search stops; zero for a playout budget.
func (b Bot) deadline() time.Time {
	if b.Playouts > 0 {
		return time.Time{}
	}
	d := b.Budget
	if d == 0 {
		d = DefaultBudget
	}
	return time.Now().Add(d)
}

// Play plays a whole game between bots, seats[i] at seat i, and returns
// the final state. Bots move in seat order when several may act at once.
// The salt varies the bots' choices between games.
func Play(rules engine.Rules, cfg engine.Config, seed engine.Seed, seats []Bot, salt uint64) (engine.State, error) {
	return PlayWatched(rules, cfg, seed, seats, salt, nil)
}

// PlayWatched is Play that calls watch, when not nil, with the events of
// every move in turn (tournaments count where the points went).
func PlayWatched(rules engine.Rules, cfg engine.Config, seed engine.Seed, seats []Bot, salt uint64, watch func([]engine.Event)) (engine.State, error) {
	if len(seats) != cfg.Players {
		return nil, fmt.Errorf("%w: %d bots for %d seats", ErrBadBot, len(seats), cfg.Players)
	}
	evs, err := rules.Start(cfg, seed)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	s, err := engine.Fold(rules, nil, evs)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	for step := uint64(0); !s.Over(); step++ {
		if step > 10000 {
			return s, fmt.Errorf("no end after %d moves", step)
		}
		seat := s.ToAct()[0]
		m, err := seats[seat].Choose(s, seat, salt*1_000_003+step)
		if err != nil {
			return s, fmt.Errorf("move %d, seat %d: %w", step, seat, err)
		}
		evs, err := rules.Decide(s, seat, m.Command, seed)
		if err != nil {
			return s, fmt.Errorf("move %d, seat %d plays %q: %w", step, seat, m.Notation, err)
		}
		if s, err = engine.Fold(rules, s, evs); err != nil {
			return s, fmt.Errorf("move %d: %w", step, err)
		}
		if watch != nil {
			watch(evs)
		}
	}
	return s, nil
}
