package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/azuld/azuld/internal/apiclient"
	"github.com/azuld/azuld/mail/compose"
)

// A move number counts in a list of legal moves, and a list belongs to
// one version of the game: once the game has moved on, the same number
// may name another move. So azul remembers, per game, which version (and
// whose seats) the last list it printed showed, and a number is played
// only while the game is still at that version; a script may instead
// bind a number itself with N@VERSION.

// seenList is what azul remembers of the last list of moves it printed
// for a game.
type seenList struct {
	Version int   `json:"version"`
	Seats   []int `json:"seats"`
}

// errNoStateDir: azul has nowhere to remember the lists it printed.
var errNoStateDir = errors.New("neither XDG_STATE_HOME nor HOME is set")

// stateDir is $XDG_STATE_HOME/azul, or ~/.local/state/azul: what azul
// remembers between runs that is not configuration.
func stateDir(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "azul"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errNoStateDir
	}
	return filepath.Join(home, ".local", "state", "azul"), nil
}

// seenListFile is where the list printed for a game is remembered.
func (a *app) seenListFile(id uuid.UUID) (string, error) {
	dir, err := stateDir(a.getenv)
	if err != nil {
		return "", errors.New(a.l.T("cli.error.no_state_dir"))
	}
	return filepath.Join(dir, "moves", id.String()+".json"), nil
}

// rememberList notes that the moves of lm were printed, numbered.
func (a *app) rememberList(id uuid.UUID, lm *apiclient.LegalMoves) error {
	path, err := a.seenListFile(id)
	if err != nil {
		return err
	}
	body, err := json.Marshal(seenList{Version: lm.Version, Seats: lm.Seats})
	if err != nil {
		return a.wrapf(err, "cli.error.remember_list")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return a.wrapf(err, "cli.error.remember_list")
	}
	if err := writePrivate(path, body); err != nil {
		return a.wrapf(err, "cli.error.remember_list")
	}
	return nil
}

// lastList is the list last printed for a game; nil when none was (or
// what was kept cannot be read: the number is then refused, not guessed).
func (a *app) lastList(id uuid.UUID) *seenList {
	path, err := a.seenListFile(id)
	if err != nil {
		return nil
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var l seenList
	if json.Unmarshal(body, &l) != nil {
		return nil
	}
	return &l
}

// moveNumber reads a move given as a number, "7", or bound to the
// version of its list, "7@17"; ok is false when the move is no number.
func (a *app) moveNumber(move string) (n, version int, ok bool, err error) {
	num, ver, bound := strings.Cut(move, "@")
	n, err = strconv.Atoi(num)
	if err != nil {
		return 0, 0, false, nil
	}
	if !bound {
		return n, 0, true, nil
	}
	version, err = strconv.Atoi(ver)
	if err != nil || version < 1 {
		return 0, 0, true, a.usage("cli.move.bad_bound", "Move", move, "Example", fmt.Sprintf("%d@17", n))
	}
	return n, version, true, nil
}

// staleNumber says why a number cannot be played from the list lm is
// now: "" when it still means what it meant.
func (a *app) staleNumber(n, bound int, seen *seenList, lm *apiclient.LegalMoves) string {
	l := a.l
	switch {
	case bound > 0 && bound != lm.Version:
		return l.T("cli.move.stale_bound", "Bound", bound, "Now", lm.Version, "N", n)
	case bound > 0:
		return ""
	case seen == nil:
		return l.T("cli.move.never_listed", "N", n)
	case seen.Version != lm.Version:
		return l.T("cli.move.stale_list", "Version", seen.Version, "Now", lm.Version, "N", n)
	case !slices.Equal(seen.Seats, lm.Seats):
		return l.T("cli.move.other_seats", "N", n, "Seen", a.seatList(seen.Seats), "Now", a.seatList(lm.Seats))
	}
	return ""
}

// printMoveList prints the legal moves numbered, in as many columns as
// fit the width, and remembers the list so that its numbers can be
// played.
func (a *app) printMoveList(ctx context.Context, id uuid.UUID, lm *apiclient.LegalMoves) error {
	if len(lm.Moves) == 0 {
		fmt.Fprintln(a.out, a.l.T("cli.moves.none", "Version", lm.Version, "ToAct", a.toAct(lm.ToAct)))
		return a.rememberList(id, lm)
	}
	// The moves in the reader's words need the game's rule set.
	ruleset, err := a.rulesetOf(ctx, id)
	if err != nil {
		return err
	}
	multi := len(lm.Seats) > 1
	cells := make([]string, len(lm.Moves))
	for i, m := range lm.Moves {
		move := a.say(ruleset, m.Notation)
		if multi {
			cells[i] = fmt.Sprintf("%4d. %s: %s", i+1, a.l.T("cli.seat.n", "N", m.Seat), move)
		} else {
			cells[i] = fmt.Sprintf("%4d. %s", i+1, move)
		}
	}
	fmt.Fprintln(a.out, a.l.T("cli.moves.header", "Version", lm.Version, "Command", "azul move "+a.l.T("cli.cmd.show.args")+" N"))
	fmt.Fprint(a.out, compose.Columns(cells, a.width()))
	return a.rememberList(id, lm)
}

// rulesetOf is a game's rule set.
func (a *app) rulesetOf(ctx context.Context, id uuid.UUID) (apiclient.Ruleset, error) {
	if a.rulesets == nil {
		a.rulesets = map[uuid.UUID]apiclient.Ruleset{}
	}
	if r, ok := a.rulesets[id]; ok {
		return r, nil
	}
	g, err := a.api.GetGameWithResponse(ctx, id, &apiclient.GetGameParams{})
	if err := a.result(g, err, http.StatusOK); err != nil {
		return "", err
	}
	a.rulesets[id] = g.JSON200.Ruleset
	return g.JSON200.Ruleset, nil
}

// width is the terminal's width, 80 when the output is no terminal.
func (a *app) width() int {
	if w := terminalWidth(a.out); w > 0 {
		return w
	}
	return 80
}
