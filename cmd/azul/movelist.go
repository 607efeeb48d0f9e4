package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/azuld/azuld/internal/apiclient"
	"github.com/azuld/azuld/internal/textcols"
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

// stateDir is $XDG_STATE_HOME/azul, or ~/.local/state/azul: what azul
// remembers between runs that is not configuration.
func stateDir(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "azul"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is set: azul cannot remember the moves it listed")
	}
	return filepath.Join(home, ".local", "state", "azul"), nil
}

// seenListFile is where the list printed for a game is remembered.
func (a *app) seenListFile(id uuid.UUID) (string, error) {
	dir, err := stateDir(a.getenv)
	if err != nil {
		return "", err
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
		return fmt.Errorf("encode the listed moves: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("remember the listed moves: %w", err)
	}
	if err := writePrivate(path, body); err != nil {
		return fmt.Errorf("remember the listed moves: %w", err)
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
func moveNumber(move string) (n, version int, ok bool, err error) {
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
		return 0, 0, true, usagef("move %q: after @ comes the version of the list the number is from, e.g. %d@17", move, n)
	}
	return n, version, true, nil
}

// staleNumber says why a number cannot be played from the list lm is
// now: "" when it still means what it meant.
func staleNumber(n, bound int, seen *seenList, lm *apiclient.LegalMoves) string {
	switch {
	case bound > 0 && bound != lm.Version:
		return fmt.Sprintf("the game has moved on since version %d (now %d): move %d of that list no longer means what it did, so it was not played", bound, lm.Version, n)
	case bound > 0:
		return ""
	case seen == nil:
		return fmt.Sprintf("move %d was not played: a number counts in the list of moves 'azul moves' printed, and none was printed for this game yet", n)
	case seen.Version != lm.Version:
		return fmt.Sprintf("the game has moved on since the list you saw (version %d, now %d): move %d no longer means what it did, so it was not played", seen.Version, lm.Version, n)
	case !slices.Equal(seen.Seats, lm.Seats):
		return fmt.Sprintf("move %d was not played: the list you saw was of seat %s, and yours now are of seat %s", n, joinInts(seen.Seats), joinInts(lm.Seats))
	}
	return ""
}

// printMoveList prints the legal moves numbered, in as many columns as
// fit the width, and remembers the list so that its numbers can be
// played.
func (a *app) printMoveList(id uuid.UUID, lm *apiclient.LegalMoves) error {
	if len(lm.Moves) == 0 {
		fmt.Fprintf(a.out, "No move to make now (version %d; to act: %s).\n", lm.Version, joinIntsOr(lm.ToAct, "nobody"))
		return a.rememberList(id, lm)
	}
	multi := len(lm.Seats) > 1
	cells := make([]string, len(lm.Moves))
	for i, m := range lm.Moves {
		if multi {
			cells[i] = fmt.Sprintf("%4d. seat %d: %s", i+1, m.Seat, m.Notation)
		} else {
			cells[i] = fmt.Sprintf("%4d. %s", i+1, m.Notation)
		}
	}
	fmt.Fprintf(a.out, "Your moves at version %d (play one with: azul move GAME N):\n", lm.Version)
	fmt.Fprint(a.out, textcols.Columns(cells, a.width()))
	return a.rememberList(id, lm)
}

// width is the terminal's width, 80 when the output is no terminal.
func (a *app) width() int {
	if w := terminalWidth(a.out); w > 0 {
		return w
	}
	return 80
}
