// Package engine is the contract every game family implements: a pure
// decider. No I/O, no clock, no global random source. A game's state is
// fold(Evolve, nil, events); Decide turns a command into the events it
// causes; randomness enters only through the Seed passed to Decide and leaves
// as data inside events, so Evolve never draws.
//
// The type-erased interfaces here are what the server uses. Each family
// (engine/azul, engine/pavilion) also exposes typed functions for hot loops
// (self-play, benchmarks, bots) that avoid interface boxing.
package engine

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Rules is one game family configured for one rule set id
// ("azul-mini", "summer-pavilion", "summer-pavilion-mini").
type Rules interface {
	// Ruleset is the rule set id.
	Ruleset() string

	// Start validates the configuration and returns the events that set up
	// a new game: first the family's game_started event (which carries the
	// configuration), then the first random deal. cfg.Ruleset must equal
	// Ruleset().
	Start(cfg Config, seed Seed) ([]Event, error)

	// Decide validates cmd, issued by seat, against s and returns the facts
	// it causes. Any random outcome (refilling factories or the supply) is
	// drawn from seed.Rand(s.Reveals()) and recorded in the events. Errors
	// are *RuleError (the move breaks a rule), ErrNotYourTurn, ErrGameOver
	// or ErrBadCommand (the command is not of this family or malformed).
	// Decide never panics and never changes s.
	Decide(s State, seat int, cmd Command, seed Seed) ([]Event, error)

	// Evolve applies one event and returns the new state; s is not changed.
	// Evolve is total: for an event that does not fit the state (a
	// corrupted or forged log) it returns an error wrapping ErrInconsistent
	// and never panics. The first event of every game is game_started,
	// applied to a nil state.
	Evolve(s State, e Event) (State, error)

	// ParseCommand reads a command in its JSON form (docs/architecture.md §5.4).
	ParseCommand(data []byte) (Command, error)
	// ParseNotation reads a command in text notation (case-insensitive).
	ParseNotation(text string) (Command, error)

	// DecodeEvent decodes a stored event, upcasting older schema versions.
	DecodeEvent(eventType string, schemaVersion int, data []byte) (Event, error)
	// DecodeState reads a state written by State.MarshalJSON (snapshots).
	// It fails if the snapshot's StateFormat differs from StateFormat().
	DecodeState(data []byte) (State, error)
	// StateFormat is the version of the snapshot format; a snapshot with
	// another format is ignored and the game refolded from its events.
	StateFormat() int

	// DecodeBoard reads a seat's board from the state JSON (the JSON of
	// PlayerView.Board in a game with opts), for a client that draws
	// boards from the API without knowing the family.
	DecodeBoard(data []byte, opts Options) (Board, error)
}

// State is the state of one game. Implementations are immutable values from
// the caller's point of view: Evolve returns a new State.
type State interface {
	// Config the game was started with.
	Config() Config
	// ToAct is the set of seats that may act now, ascending. Empty when
	// the game is over. More than one seat acts at once during Azul's
	// grey-wall tiling (Decision A2).
	ToAct() []int
	// Over reports whether the game has ended.
	Over() bool
	// Final is the final breakdown, nil until the game is over.
	Final() *Final
	// LegalMoves lists every legal command of seat now (empty if the seat
	// may not act), each with its canonical JSON and notation.
	LegalMoves(seat int) []Move
	// Reveals counts the random reveals (deals, refills) folded so far; the
	// next reveal draws from Seed.Rand(Reveals()).
	Reveals() int
	// View is the state JSON of docs/architecture.md §5.4 (without the server's fields:
	// id, version, status, player names).
	View() View
	// Text renders the whole table (offer, every board, scores) for a
	// monospace font, at most 72 columns per line.
	Text() string
	// Scores are the current scores by seat.
	Scores() []int
	// MarshalJSON writes the state for a snapshot (see Rules.DecodeState).
	MarshalJSON() ([]byte, error)
}

// Event is a past-tense fact. Type names are stable snake_case
// ("tiles_taken"); a change of an event's JSON shape bumps SchemaVersion and
// Rules.DecodeEvent upcasts the old shape. Every family's Start, Decide
// and DecodeEvent box their events as pointers (*azul.Event,
// *pavilion.Event); Evolve takes the values too.
type Event interface {
	EventType() string
	SchemaVersion() int
	// Describe is what the event did as language-neutral data, for the
	// words of a history and the sorting of news.
	Describe() Description
}

// Command is a move (or a system action) a seat asks for.
type Command interface {
	// Notation is the canonical text notation, e.g. "F2 red 3".
	Notation() string
	// MarshalJSON is the canonical JSON form of docs/architecture.md §5.4.
	MarshalJSON() ([]byte, error)
}

// Move is a legal command with its two canonical forms.
type Move struct {
	Command  Command         `json:"-"`
	JSON     json.RawMessage `json:"move"`
	Notation string          `json:"notation"`
}

// NewMove builds a Move from a command.
func NewMove(c Command) Move {
	data, err := c.MarshalJSON()
	if err != nil {
		// Commands built by the engine always marshal; keep Move total.
		data = []byte("null")
	}
	return Move{Command: c, JSON: data, Notation: c.Notation()}
}

// Config is what a game is started with.
type Config struct {
	Ruleset string  `json:"ruleset"`
	Players int     `json:"players"`
	Options Options `json:"options"`
}

// Options are the rule variants. Zero values are the standard game.
type Options struct {
	// Wall is "" / "coloured" or "grey" (azul-mini only).
	Wall string `json:"wall,omitempty"`
	// Board is "" / "coloured" or "monochrome" (Summer Pavilion only).
	Board string `json:"board,omitempty"`
	// WildOrder is another order of the six wild colours (Summer Pavilion
	// only): a permutation of the six colour names.
	WildOrder []string `json:"wild_order,omitempty"`
}

// Final is the end-of-game result.
type Final struct {
	// Reason is why the game ended: "row_completed" (Azul), "rounds_played"
	// (Pavilion), "round_limit" or "no_tiles" (Decision A3), "resigned".
	Reason  string        `json:"reason"`
	Players []FinalPlayer `json:"players"`
	// Winners are the seats ranked 1 (several when the victory is shared).
	Winners []int `json:"winners"`
}

// FinalPlayer is one seat's final score and its breakdown.
type FinalPlayer struct {
	Seat  int `json:"seat"`
	Score int `json:"score"`
	// Rank 1 is best; tied seats share a rank.
	Rank int `json:"rank"`
	// Breakdown lists the end-of-game items, e.g. {"rows", 2, 4}.
	Breakdown []ScoreItem `json:"breakdown"`
	Resigned  bool        `json:"resigned,omitempty"`
}

// ScoreItem is one line of a final breakdown.
type ScoreItem struct {
	Item   string `json:"item"`
	Count  int    `json:"count"`
	Points int    `json:"points"`
}

// View is the state JSON of docs/architecture.md §5.4, filled by each family.
type View struct {
	Ruleset   string           `json:"ruleset"`
	Options   Options          `json:"options"`
	Round     int              `json:"round"`
	Phase     string           `json:"phase"`
	Wild      string           `json:"wild,omitempty"`
	ToAct     []int            `json:"to_act"`
	Factories []map[string]int `json:"factories"`
	Center    CenterView       `json:"center"`
	Supply    map[string]int   `json:"supply,omitempty"`
	Bag       int              `json:"bag"`
	Discard   int              `json:"discard"`
	Players   []PlayerView     `json:"players"`
	Final     *Final           `json:"final,omitempty"`
}

// CenterView is the centre of the table.
type CenterView struct {
	Tiles  map[string]int `json:"tiles"`
	Marker bool           `json:"marker"`
}

// PlayerView is one seat in the state JSON. Board is the family's board:
// Azul {lines, wall, floor}; Pavilion {stars}.
type PlayerView struct {
	Seat   int            `json:"seat"`
	Name   string         `json:"name,omitempty"`
	Score  int            `json:"score"`
	Hand   map[string]int `json:"hand,omitempty"`
	Kept   map[string]int `json:"kept,omitempty"`
	Board  any            `json:"board"`
	Passed bool           `json:"passed"`
	Marker bool           `json:"marker"`
}

// Errors every family returns (wrapped with detail).
var (
	ErrNotYourTurn  = errors.New("not this seat's turn")
	ErrGameOver     = errors.New("the game is over")
	ErrBadCommand   = errors.New("malformed command")
	ErrInconsistent = errors.New("event does not fit the state")
)

// RuleError says which rule forbids a well-formed move.
type RuleError struct {
	// Rule is a stable id such as "azul.line-holds-other-colour"; Ref points
	// into docs/rules.md, e.g. "docs/rules.md §2.2".
	Rule   string `json:"rule"`
	Ref    string `json:"ref"`
	Detail string `json:"detail"`
}

func (e *RuleError) Error() string { return fmt.Sprintf("%s (%s): %s", e.Detail, e.Ref, e.Rule) }

// Registry maps rule set ids to their rules.
type Registry map[string]Rules

// Get returns the rules of a rule set id.
func (r Registry) Get(ruleset string) (Rules, error) {
	rules, ok := r[ruleset]
	if !ok {
		return nil, fmt.Errorf("%w: unknown ruleset %q", ErrBadCommand, ruleset)
	}
	return rules, nil
}

// Fold applies events to a state in order (s may be nil before game_started).
func Fold(rules Rules, s State, events []Event) (State, error) {
	for i, e := range events {
		next, err := rules.Evolve(s, e)
		if err != nil {
			return s, fmt.Errorf("event %d (%s): %w", i, e.EventType(), err)
		}
		s = next
	}
	return s, nil
}
