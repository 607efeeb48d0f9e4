package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is a pseudo-terminal a command runs in, and what it shows.
type terminal struct {
	t    *testing.T
	ptmx *os.File // the terminal's side: what is typed and shown
	tty  *os.File // the command's side: its stdin, stdout and stderr

	mu  sync.Mutex
	out strings.Builder
}

// newTerminal opens a 100x60 pseudo-terminal and records all it shows.
func newTerminal(t *testing.T) *terminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 60, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, ptmx: ptmx, tty: tty}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		tty.Close()
		ptmx.Close()
		// A read blocked on a terminal may outlive Close; the test does
		// not wait for it long.
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	})
	return term
}

// run runs a command in the terminal, in the background; the channel
// gets its exit code.
func (term *terminal) run(ctx context.Context, u *user, args ...string) <-chan int {
	code := make(chan int, 1)
	getenv := func(k string) string {
		if k == "TERM" {
			return "xterm-256color"
		}
		return u.env[k]
	}
	a := u.newApp(stdio{in: term.tty, out: term.tty, err: term.tty}, getenv)
	go func() { code <- a.execute(ctx, args) }()
	return code
}

// raw is everything the terminal received so far.
func (term *terminal) raw() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.String()
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// screen is what the terminal shows now: what was written since the
// screen was last cleared, without colours.
func (term *terminal) screen() string {
	s := term.raw()
	if i := strings.LastIndex(s, "\x1b[2J"); i >= 0 {
		s = s[i:]
	}
	return strings.ReplaceAll(ansi.ReplaceAllString(s, ""), "\r", "")
}

// waitFor waits until the screen shows every one of wants, and returns it.
func (term *terminal) waitFor(wants ...string) string {
	term.t.Helper()
	var s, missing string
	shows := func() bool {
		s, missing = term.screen(), ""
		for _, w := range wants {
			if !strings.Contains(s, w) {
				missing = w
				return false
			}
		}
		return true
	}
	if !waitUntil(patience, shows) {
		term.t.Fatalf("the screen does not show %q:\n%s", missing, s)
	}
	return s
}

// type sends keys as if typed.
func (term *terminal) typeKeys(keys string) {
	term.t.Helper()
	if _, err := term.ptmx.WriteString(keys); err != nil {
		term.t.Fatal(err)
	}
}

// wantExit waits for a command's exit code.
func wantExit(t *testing.T, code <-chan int, want int) {
	t.Helper()
	select {
	case got := <-code:
		if got != want {
			t.Fatalf("exit %d, want %d", got, want)
		}
	case <-time.After(patience):
		t.Fatal("the command did not end")
	}
}

// TestWatchRedraws follows a game in a terminal while the players move:
// the screen is redrawn with each new version, in colour, with the last
// moves below the table, until the watch is stopped.
func TestWatchRedraws(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	term := newTerminal(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	code := term.run(ctx, bob, "watch", id)
	term.waitFor("version 4  active", "To act: seat 0 (Ana)\n", "Bob joined at seat 1", "Watching for moves")

	ana.play(id, 1)
	s := term.waitFor("version 5  active", "Watching for moves")
	for _, want := range []string{"To act: seat 1 (Bob)  <- your move", "Last moves:", "Ana took ", "Seats: 0 Ana, 1 you (Bob)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "Azul Mini, 2 players") != 1 {
		t.Errorf("the screen was not redrawn but added to:\n%s", s)
	}
	// Colour in a terminal: a tile colour name is wrapped in its code.
	if !regexp.MustCompile(`\x1b\[3[1-4]m\d+ (blue|yellow|red)\x1b\[0m`).MatchString(term.raw()) {
		t.Errorf("no colours in the terminal:\n%q", term.raw())
	}

	bob.play(id, 1)
	term.waitFor("version 6  active", "To act: seat 0 (Ana)\n", "Bob took ")
	stop()
	wantExit(t, code, exitOK)
}

// TestReplayKeys steps through a game's versions with the arrow keys.
func TestReplayKeys(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	ana.play(id, 1)
	bob.play(id, 1)
	ana.play(id, 1)
	var g state
	ana.mustJSON(&g, "show", id)
	if g.Version != 7 {
		t.Fatalf("version %d after three moves, want 7", g.Version)
	}
	term := newTerminal(t)
	code := term.run(context.Background(), ana, "replay", id)
	s := term.waitFor("Version 1 of 7: game created", "q quit")
	if !strings.Contains(s, "version 1  open") || !strings.Contains(s, "seat 1 is still free") {
		t.Errorf("version 1 shows:\n%s", s)
	}
	term.typeKeys("\x1b[C") // →
	term.waitFor("version 2  open", "Version 2 of 7: Bob joined at seat 1", "q quit")
	term.typeKeys("\x1b[F") // End
	s = term.waitFor("version 7  active", "Version 7 of 7: Ana took", "q quit")
	if !strings.Contains(s, "Azul Mini, 2 players") {
		t.Errorf("the last version shows no table:\n%s", s)
	}
	term.typeKeys("\x1b[D") // ←
	term.waitFor("version 6  active", "Version 6 of 7: Bob took", "q quit")
	term.typeKeys("\x1b[C\x1b[C") // → at the end stays there
	term.waitFor("Version 7 of 7", "q quit")
	term.typeKeys("\x1b[H") // Home
	term.waitFor("Version 1 of 7", "q quit")
	term.typeKeys("q")
	wantExit(t, code, exitOK)
	// Leaving, the replay shows the cursor and the screen from before.
	eventually(t, patience, func() bool { return strings.HasSuffix(term.raw(), "\x1b[?25h\x1b[?1049l") },
		"the replay shows the cursor again and leaves the alternate screen (\\x1b[?25h\\x1b[?1049l last)")
}

// TestColours: colours in a terminal, none with NO_COLOR.
func TestColours(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, _, id := newTwoPlayerGame(t, srv.URL)
	term := newTerminal(t)
	wantExit(t, term.run(context.Background(), ana, "show", id), exitOK)
	term.waitFor("Wall: capitals are tiles")
	if !strings.Contains(term.raw(), "\x1b[2;34mb\x1b[0m") {
		t.Errorf("no coloured wall in a terminal: %q", term.raw())
	}
	plain := newTerminal(t)
	ana.env["NO_COLOR"] = "1"
	wantExit(t, plain.run(context.Background(), ana, "show", id), exitOK)
	plain.waitFor("Wall: capitals are tiles")
	if strings.Contains(plain.raw(), "\x1b[") {
		t.Errorf("colours with NO_COLOR: %q", plain.raw())
	}
}
