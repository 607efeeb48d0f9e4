package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/azuld/azuld/internal/apiclient"
)

func (a *app) replayCommand() *cobra.Command {
	var version int
	cmd := &cobra.Command{
		Use:               "replay GAME",
		Args:              a.args(1, 1),
		ValidArgsFunction: a.completeGames,
		RunE: a.onGame(func(cmd *cobra.Command, id uuid.UUID, args []string) error {
			ctx := cmd.Context()
			if cmd.Flags().Changed("version") {
				if version < 1 {
					return a.usage("cli.error.version_min")
				}
				return a.printVersion(ctx, id, version)
			}
			cur, err := a.fetchTable(ctx, id, 0)
			if err != nil {
				return err
			}
			last := cur.state.Version
			a.setGame(cur.state.Ruleset, cur.state.Seats)
			in, ok := a.in.(*os.File)
			if a.jsonOut || !ok || !term.IsTerminal(int(in.Fd())) || !isTerminal(a.out) {
				for v := 1; v <= last; v++ {
					if err := a.printVersion(ctx, id, v); err != nil {
						return err
					}
				}
				return nil
			}
			return a.replayInteractive(ctx, id, in, last)
		}),
	}
	cmd.Flags().IntVar(&version, "version", 0, a.l.T("cli.flag.version"))
	return cmd
}

// printVersion prints one version (JSON: its state).
func (a *app) printVersion(ctx context.Context, id uuid.UUID, v int) error {
	t, err := a.fetchTable(ctx, id, v)
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.printJSON(t.body)
	}
	fmt.Fprint(a.out, a.render(t, a.colour()))
	fmt.Fprintln(a.out)
	return nil
}

// eventLines are the one-line descriptions of a game's events by version.
func (a *app) eventLines(ctx context.Context, id uuid.UUID) (map[int]string, error) {
	out := map[int]string{}
	err := a.eachEventPage(ctx, id, func(page []apiclient.Event, _ []json.RawMessage) {
		for _, ev := range page {
			text := a.describe(ev)
			if deref(ev.Undone) {
				text += " " + a.l.T("cli.log.undone", "Version", deref(ev.UndoneBy))
			}
			out[ev.Version] = text
		}
	})
	return out, err
}

// key is a key the replay understands.
type key int

const (
	keyNone key = iota
	keyNext
	keyPrev
	keyFirst
	keyLast
	keyPageDown
	keyPageUp
	keyQuit
)

// readKeys reads the keys pressed since the last read from a terminal
// in raw mode (several when typed fast or held down).
func readKeys(in *os.File) ([]key, error) {
	buf := make([]byte, 64)
	n, err := in.Read(buf)
	if err != nil {
		return nil, fmt.Errorf("keyboard: %w", err)
	}
	var keys []key
	for _, press := range splitKeys(string(buf[:n])) {
		keys = append(keys, parseKey(press))
	}
	return keys, nil
}

// splitKeys cuts terminal input into key presses: escape sequences
// (ESC [ params final, ESC O final) and single bytes.
func splitKeys(s string) []string {
	var out []string
	for len(s) > 0 {
		n := 1
		if s[0] == 0x1b && len(s) > 2 && (s[1] == '[' || s[1] == 'O') {
			n = 2
			for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == ';') {
				n++
			}
			if n < len(s) {
				n++
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// parseKey maps the bytes of one key press (escape sequences of xterm
// and the Linux console) to a key.
func parseKey(s string) key {
	switch s {
	case "\x1b[C", "\x1bOC", "l", " ", "n", "\r":
		return keyNext
	case "\x1b[D", "\x1bOD", "h", "p", "\x7f":
		return keyPrev
	case "\x1b[H", "\x1bOH", "\x1b[1~", "\x1b[7~", "g":
		return keyFirst
	case "\x1b[F", "\x1bOF", "\x1b[4~", "\x1b[8~", "G":
		return keyLast
	case "\x1b[6~", "\x1b[B", "j":
		return keyPageDown
	case "\x1b[5~", "\x1b[A", "k":
		return keyPageUp
	case "q", "Q", "\x03", "\x04", "\x1b":
		return keyQuit
	}
	return keyNone
}

// replayInteractive shows one version at a time and moves on key
// presses, in raw mode on the alternate screen.
func (a *app) replayInteractive(ctx context.Context, id uuid.UUID, in *os.File, last int) error {
	if last == 0 {
		fmt.Fprintln(a.out, a.l.T("cli.show.no_events"))
		return nil
	}
	lines, err := a.eventLines(ctx, id)
	if err != nil {
		return err
	}
	old, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return a.wrapf(err, "cli.replay.raw")
	}
	fmt.Fprint(a.out, "\x1b[?1049h\x1b[?25l")
	defer func() {
		fmt.Fprint(a.out, "\x1b[?25h\x1b[?1049l")
		_ = term.Restore(int(in.Fd()), old)
	}()
	colour := a.colour()
	cache := map[int]string{}
	v := 1
	for {
		screen, ok := cache[v]
		if !ok {
			t, err := a.fetchTable(ctx, id, v)
			if err != nil {
				return err
			}
			screen = a.render(t, colour)
			cache[v] = screen
		}
		var b strings.Builder
		b.WriteString("\x1b[H\x1b[2J")
		b.WriteString(screen)
		b.WriteString("\n" + a.l.T("cli.replay.version", "Version", v, "Last", last, "Event", lines[v]) + "\n")
		b.WriteString(a.l.T("cli.replay.keys"))
		// Raw mode: the terminal no longer turns \n into \r\n.
		fmt.Fprint(a.out, strings.ReplaceAll(b.String(), "\n", "\r\n"))
		keys, err := readKeys(in)
		if err != nil {
			return err
		}
		for _, k := range keys {
			switch k {
			case keyNext:
				v = min(v+1, last)
			case keyPrev:
				v = max(v-1, 1)
			case keyFirst:
				v = 1
			case keyLast:
				v = last
			case keyPageDown:
				v = min(v+10, last)
			case keyPageUp:
				v = max(v-10, 1)
			case keyQuit:
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// eachEventPage reads a game's whole event log, page by page.
func (a *app) eachEventPage(ctx context.Context, id uuid.UUID, fn func([]apiclient.Event, []json.RawMessage)) error {
	after, limit := 0, 1000
	for {
		res, err := a.api.GameEventsWithResponse(ctx, id, &apiclient.GameEventsParams{After: &after, Limit: &limit})
		if res != nil {
			a.noteEventsLanguage(res.HTTPResponse)
		}
		if err := a.result(res, err, http.StatusOK); err != nil {
			return err
		}
		var raw struct {
			Events []json.RawMessage `json:"events"`
		}
		if err := json.Unmarshal(res.Body, &raw); err != nil {
			return &exitError{code: exitFailure, err: &mismatchError{err.Error()}}
		}
		page := res.JSON200.Events
		fn(page, raw.Events)
		if len(page) < limit {
			return nil
		}
		after = page[len(page)-1].Version
	}
}
