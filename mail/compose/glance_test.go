package compose

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
)

// flat is a text with its runs of white space made one space, so that
// sentences can be found across the text part's line breaks.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// play plays random moves (no resignations) of a two-player game of
// ruleset until stop says so, and returns the state.
func play(t *testing.T, ruleset string, stop func(engine.State) bool) engine.State {
	t.Helper()
	rules, err := rulesets.All().Get(ruleset)
	if err != nil {
		t.Fatal(err)
	}
	s := table(t, ruleset, 2)
	var seed engine.Seed
	copy(seed[:], "a fixed seed for the mail tests.")
	rng := rand.New(rand.NewPCG(7, 8))
	for !s.Over() && !stop(s) {
		seat := s.ToAct()[0]
		var ok []engine.Move
		for _, m := range s.LegalMoves(seat) {
			if m.Notation != "resign" {
				ok = append(ok, m)
			}
		}
		// Prefer anything but a pass, so that the game gets somewhere.
		m := ok[rng.IntN(len(ok))]
		for range 5 {
			if !isPass(m) {
				break
			}
			m = ok[rng.IntN(len(ok))]
		}
		evs, err := rules.Decide(s, seat, m.Command, seed)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = engine.Fold(rules, s, evs); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestRefusalToASeatNotToMove(t *testing.T) {
	s := table(t, "azul-mini", 2)
	g := info(s, "Ann", "Bob")
	r := Recipient{Name: "Bob", Address: "bob@example.net", Seat: 1, SeatToken: token}
	m := Refused(sender, r, g, "it is not your turn", s.LegalMoves(1), now)
	for _, bad := range []string{"answer again with one of the moves below", "(none)", "Your legal moves"} {
		if strings.Contains(flat(m.Text), bad) || strings.Contains(m.HTML, bad) {
			t.Errorf("refusal to a seat not to move says %q:\n%s", bad, m.Text)
		}
	}
	if !strings.Contains(flat(m.Text), "Next to move: Ann. You will get a mail when it is your turn.") {
		t.Errorf("refusal does not say who moves:\n%s", m.Text)
	}
	// After the end, nobody moves.
	g.ToAct = nil
	if m := Refused(sender, r, g, "the game is over", nil, now); strings.Contains(m.Text, "(none)") || !strings.Contains(flat(m.Text), "no move can be made in it any more") {
		t.Errorf("refusal after the end:\n%s", m.Text)
	}
}

func TestStoppedSeatIsNotPromisedMails(t *testing.T) {
	s := table(t, "azul-mini", 2)
	g := info(s, "Ann", "Bob")
	r := Recipient{Name: "Bob", Address: "bob@example.net", Seat: 1, SeatToken: token, Stopped: true}
	for name, m := range map[string]Mail{
		"accepted": Accepted(sender, r, g, "F1 blue 1", now),
		"refused":  Refused(sender, r, g, "no such move", nil, now),
	} {
		if strings.Contains(flat(m.Text), "You will get a mail") || strings.Contains(m.HTML, "You will get a mail") {
			t.Errorf("%s mail to a stopped seat promises mails:\n%s", name, m.Text)
		}
		if !strings.Contains(flat(m.Text), "You stopped the mails of this game") {
			t.Errorf("%s mail to a stopped seat does not say so:\n%s", name, m.Text)
		}
		if strings.Contains(m.Text, "To stop mails") {
			t.Errorf("%s mail to a stopped seat offers to stop them", name)
		}
	}
}

func TestSeatedInAStartedGame(t *testing.T) {
	s := table(t, "azul-mini", 2)
	g := info(s, "Ann", "Bob")
	r := Recipient{Name: "Bob", Address: "bob@example.net", Seat: 1, SeatToken: token, Inviter: "Ann"}
	g.Started = true
	for name, m := range map[string]Mail{
		"started": Started(sender, r, g, now),
		"turn":    Turn(sender, r, g, s.LegalMoves(1), nil, now),
	} {
		text := flat(m.Text)
		for _, bad := range []string{"take your seat", "starts when every seat is taken"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s mail says %q:\n%s", name, bad, m.Text)
			}
		}
		if !strings.Contains(text, "Ann has given you a seat in a game of Azul Mini (game 01935f3c-7b2a), and the game has started.") {
			t.Errorf("%s mail does not tell of the start:\n%s", name, m.Text)
		}
	}
	// An invitation to a game with free seats does not ask to take a seat
	// already given.
	if inv := Invitation(sender, r, g, "Ann", now); strings.Contains(flat(inv.Text), "take your seat") {
		t.Errorf("invitation:\n%s", inv.Text)
	}
}

func TestBoardsHaveNames(t *testing.T) {
	for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
		s := table(t, ruleset, 2)
		g := info(s, "Ann", "Bob")
		r := Recipient{Name: "Bob", Address: "bob@example.net", Seat: 1, SeatToken: token}
		m := Started(sender, r, g, now)
		if regexp.MustCompile(`\b[Ss]eat \d`).MatchString(m.Text) {
			t.Errorf("%s: the table names seats by number:\n%s", ruleset, m.Text)
		}
		if !strings.Contains(m.Text, "\nBob (you): ") || !strings.Contains(m.Text, "\nAnn: ") || !strings.Contains(flat(m.Text), "Your board is the one marked “Bob (you)”") {
			t.Errorf("%s: boards not named, or the reader's not marked:\n%s", ruleset, m.Text)
		}
	}
}

func TestPavilionPassesDescribedOnce(t *testing.T) {
	s := play(t, "summer-pavilion", func(s engine.State) bool {
		n := 0
		for _, m := range s.LegalMoves(s.ToAct()[0]) {
			if isPass(m) {
				n++
			}
		}
		return n > 20
	})
	seat := s.ToAct()[0]
	moves := s.LegalMoves(seat)
	g := info(s, "Ann", "Bob")
	r := Recipient{Name: "Ann", Address: "ann@example.net", Seat: seat, SeatToken: token}
	m := Turn(sender, r, g, moves, nil, now)
	numbered, passes := Numbered(moves)
	if !passes || len(numbered) >= len(moves) {
		t.Fatalf("Numbered kept %d of %d moves", len(numbered), len(moves))
	}
	for _, mv := range numbered {
		if isPass(mv) {
			t.Errorf("a pass is numbered: %q", mv.Notation)
		}
	}
	if n := strings.Count(flat(m.Text), "pass keep"); n != 1 {
		t.Errorf("the text names %d passes, want the one example:\n%s", n, m.Text)
	}
	if !regexp.MustCompile(`Or pass, keeping up to four tiles of your hand for the next round: "pass keep [a-z ]+" \(just "pass" keeps none\)\.`).MatchString(flat(m.Text)) {
		t.Errorf("passing not described:\n%s", m.Text)
	}
	if strings.Count(m.HTML, "<li ") != len(numbered) {
		t.Errorf("HTML lists %d moves, want %d", strings.Count(m.HTML, "<li "), len(numbered))
	}
}

func TestGameOverInWords(t *testing.T) {
	for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
		s := play(t, ruleset, func(engine.State) bool { return false })
		g := info(s, "Ann", "Bob")
		r := Recipient{Name: "Ann", Address: "ann@example.net", Seat: 0, SeatToken: token}
		m := GameOver(sender, r, g, s.Final(), now)
		for _, bad := range []string{"_", "points: +1 points", "1 points", "Winner(s)", "#1"} {
			if strings.Contains(m.Text, bad) {
				t.Errorf("%s: game-over text holds %q:\n%s", ruleset, bad, m.Text)
			}
		}
		if n := strings.Count(m.Text, "Final result"); n != 1 {
			t.Errorf("%s: the result is shown %d times:\n%s", ruleset, n, m.Text)
		}
		if !strings.Contains(flat(m.Text), "is over after its last round.") && !strings.Contains(flat(m.Text), "is over: ") {
			t.Errorf("%s: no reason in words:\n%s", ruleset, m.Text)
		}
	}
	if got := itemText(en, engine.ScoreItem{Item: "all_1s", Count: 1, Points: 4}); got != "every space 1 covered on all stars: +4 points" {
		t.Errorf("all_1s: %q", got)
	}
	if got := itemText(en, engine.ScoreItem{Item: "kept_tiles", Count: 3, Points: -1}); got != "3 tiles left over: −1 point" {
		t.Errorf("kept_tiles: %q", got)
	}
	if got := itemText(en, engine.ScoreItem{Item: "rows", Count: 1, Points: 2}); got != "1 complete row: +2 points" {
		t.Errorf("rows: %q", got)
	}
}

func TestHTMLDrawsTilesInColour(t *testing.T) {
	for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
		moves := 0
		s := play(t, ruleset, func(engine.State) bool { moves++; return moves > 12 })
		g := info(s, "Ann", "Bob")
		m := Turn(sender, Recipient{Name: "Ann", Address: "ann@example.net", SeatToken: token}, g, s.LegalMoves(s.ToAct()[0]), nil, now)
		cells := regexp.MustCompile(`<td style="[^"]*background:#[0-9a-f]{6};color:#[0-9a-f]{6}">([A-Z1])</td>`).FindAllStringSubmatch(m.HTML, -1)
		if len(cells) < 10 {
			t.Errorf("%s: %d coloured tile cells with a letter:\n%s", ruleset, len(cells), m.HTML)
		}
		for _, bad := range []string{"<img", "<script", "ZgotmplZ", "background-image"} {
			if strings.Contains(m.HTML, bad) {
				t.Errorf("%s: HTML holds %q", ruleset, bad)
			}
		}
	}
}

func TestThreadRootIsAMailSent(t *testing.T) {
	s := table(t, "azul-mini", 2)
	g := info(s, "Ann", "Bob")
	r := Recipient{Name: "Ann", Address: "ann@example.net", SeatToken: token}
	first := Started(sender, r, g, now)
	if first.InReplyTo != "" || len(first.References) != 0 {
		t.Errorf("the first mail refers to %q %v", first.InReplyTo, first.References)
	}
	r.Thread = first.MessageID
	next := Turn(sender, r, g, s.LegalMoves(0), nil, now)
	if next.InReplyTo != first.MessageID || len(next.References) != 1 || next.References[0] != first.MessageID {
		t.Errorf("the next mail refers to %q %v, want %q", next.InReplyTo, next.References, first.MessageID)
	}
}

// The table's heading names the game as the subject does, not by its
// rule set id.
func TestBoardHeadingNamesTheGame(t *testing.T) {
	for ruleset, want := range map[string]string{
		"azul-mini":            "\nAzul Mini, 2 players",
		"summer-pavilion":      "\nAzul: Summer Pavilion, 2 players",
		"summer-pavilion-mini": "\nAzul: Summer Pavilion Mini, 2 players",
	} {
		s := table(t, ruleset, 2)
		g := info(s, "Ann", "Bob")
		r := Recipient{Name: "Ann", Address: "ann@example.net", Seat: 0, SeatToken: token}
		m := Turn(sender, r, g, s.LegalMoves(0), nil, now)
		if !strings.Contains(m.Text, want) || strings.Contains(m.Text, ruleset+",") {
			t.Errorf("%s: the table's heading is not %q:\n%s", ruleset, want, m.Text)
		}
	}
}

// A Summer Pavilion seat that cannot place a tile is told so and how to
// pass, not shown an empty list of moves.
func TestPavilionOnlyPass(t *testing.T) {
	s := play(t, "summer-pavilion", func(s engine.State) bool {
		moves := s.LegalMoves(s.ToAct()[0])
		n := 0
		for _, m := range moves {
			if isPass(m) {
				n++
			}
		}
		return n > 1 && n == len(moves)
	})
	seat := s.ToAct()[0]
	g := info(s, "Ann", "Bob")
	r := Recipient{Name: "Ann", Address: "ann@example.net", Seat: seat, SeatToken: token}
	for _, m := range []Mail{Turn(sender, r, g, s.LegalMoves(seat), nil, now), Reminder(sender, r, g, s.LegalMoves(seat), deadline, now)} {
		text := flat(m.Text)
		if strings.Contains(text, "Your legal moves") || strings.Contains(m.HTML, "Your legal moves") {
			t.Errorf("an empty list of moves is announced:\n%s", m.Text)
		}
		if !strings.Contains(text, "You cannot place a tile now: your only move at version 17 is to pass.") ||
			!regexp.MustCompile(`Answer "pass" to keep none of the tiles of your hand for the next round, or name up to four to keep, for example "pass keep [a-z ]+"\.`).MatchString(text) {
			t.Errorf("passing not explained:\n%s", m.Text)
		}
		if !strings.Contains(m.HTML, "You cannot place a tile now") {
			t.Errorf("the HTML part does not explain passing:\n%s", m.HTML)
		}
	}
}
