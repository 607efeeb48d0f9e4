package compose

import (
	"bytes"
	"flag"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

// testCat and testWords are the catalogue and move words every test
// mail is written with (the pseudo-locale included).
var (
	testCat   = must(i18n.New(i18n.Options{Pseudo: true}))
	testWords = must(notation.New(i18n.Options{Pseudo: true}))
	// en is the English reader of the tests that read words.
	en = testCat.Localizer("en", time.UTC)
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var update = flag.Bool("update", false, "rewrite the golden files")

var (
	sender = Sender{
		Domain:    "azul.example.org",
		From:      mail.Address{Name: "azuld", Address: "azuld@azul.example.org"},
		BaseURL:   "https://azul.example.org",
		Catalogue: testCat,
		Words:     testWords,
	}
	now      = time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)
	deadline = now.Add(3*24*time.Hour + 2*time.Hour)
	token    = "abcdefghijklmnopqrstuvwxyz234567"
	gameID   = "01935f3c-7b2a-7cde-8f00-1a2b3c4d5e6f"
	// firstMail is the Message-ID of the seat's first mail of the game,
	// the root of its thread.
	firstMail = MessageID(sender, gameID, 3, 0, KindStarted)
)

// table starts a real game of ruleset and returns its state.
func table(t testing.TB, ruleset string, players int) engine.State {
	t.Helper()
	rules, err := rulesets.All().Get(ruleset)
	if err != nil {
		t.Fatal(err)
	}
	var seed engine.Seed
	copy(seed[:], "a fixed seed for the mail tests.")
	events, err := rules.Start(engine.Config{Ruleset: ruleset, Players: players}, seed)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Fold(rules, nil, events)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func info(s engine.State, names ...string) GameInfo {
	v := s.View()
	g := GameInfo{ID: gameID, Ruleset: s.Config().Ruleset, Version: 17, Board: s.Text(), View: &v, ToAct: s.ToAct()}
	for i, sc := range s.Scores() {
		g.Players = append(g.Players, PlayerScore{Seat: i, Name: names[i], Score: sc})
	}
	return g
}

// everyMail renders one mail of each kind for a two-player game whose
// players have hostile and non-ASCII names.
func everyMail(t testing.TB, ruleset string) (map[string]Mail, string) {
	s := table(t, ruleset, 2)
	names := []string{"Zoë Ñúñez 漢字", "<script>alert(1)</script>"}
	g := info(s, names...)
	r := Recipient{Name: names[0], Address: "zoe@example.net", Seat: 0, SeatToken: token, Thread: firstMail}
	moves := s.LegalMoves(0)
	final := &engine.Final{Reason: "rounds_played", Winners: []int{1}, Players: []engine.FinalPlayer{
		{Seat: 0, Score: 41, Rank: 2, Breakdown: []engine.ScoreItem{{Item: "rows", Count: 2, Points: 4}}},
		{Seat: 1, Score: 57, Rank: 1, Breakdown: []engine.ScoreItem{{Item: "colours", Count: 1, Points: 10}}},
	}}
	return map[string]Mail{
		"turn":       Turn(sender, r, g, moves, &deadline, now),
		"turn-free":  Turn(sender, r, g, moves, nil, now),
		"reminder":   Reminder(sender, r, g, moves, deadline, now),
		"invitation": Invitation(sender, r, g, names[1], now),
		"started":    Started(sender, r, g, now),
		"over":       GameOver(sender, r, g, final, now),
		"accepted":   Accepted(sender, r, g, moves[0].Notation, now),
		"refused":    Refused(sender, r, g, "line 3 already holds blue tiles (docs/rules.md §2.2): azul.line-holds-other-colour", moves, now),
		"takeback":   TakebackRequested(sender, r, g, names[1], 2, g.Version-1, now),
	}, blocksText(drawView(en, g, 0))
}

// parsed is a mail read back with the standard library only.
type parsed struct {
	header     mail.Header
	subject    string
	to         *mail.Address
	text, html string
}

func parse(t *testing.T, raw []byte) parsed {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("net/mail cannot read the mail: %v", err)
	}
	var p parsed
	p.header = msg.Header
	var dec mime.WordDecoder
	if p.subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		t.Fatalf("subject: %v", err)
	}
	to, err := mail.ParseAddress(msg.Header.Get("To"))
	if err != nil {
		t.Fatalf("To: %v", err)
	}
	p.to = to
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q: %v", msg.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for i := 0; ; i++ {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			if i != 2 {
				t.Fatalf("%d parts, want 2", i)
			}
			break
		}
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		if cte := part.Header.Get("Content-Transfer-Encoding"); cte != "quoted-printable" {
			t.Fatalf("part %d encoding %q", i, cte)
		}
		body, err := io.ReadAll(quotedprintable.NewReader(part))
		if err != nil {
			t.Fatalf("part %d quoted-printable: %v", i, err)
		}
		switch ct := part.Header.Get("Content-Type"); ct {
		case "text/plain; charset=utf-8":
			p.text = string(body)
		case "text/html; charset=utf-8":
			p.html = string(body)
		default:
			t.Fatalf("part %d type %q", i, ct)
		}
	}
	return p
}

func TestMailsParseBack(t *testing.T) {
	for _, ruleset := range []string{"azul-mini", "summer-pavilion", "summer-pavilion-mini"} {
		mails, board := everyMail(t, ruleset)
		for kind, m := range mails {
			t.Run(ruleset+"/"+kind, func(t *testing.T) {
				raw, err := m.Bytes()
				if err != nil {
					t.Fatal(err)
				}
				checkWire(t, raw)
				p := parse(t, raw)
				// The text part is stored with LF; quoted-printable carries CRLF.
				if got := strings.ReplaceAll(p.text, "\r\n", "\n"); got != m.Text {
					t.Errorf("text part differs after the round trip")
				}
				if got := strings.ReplaceAll(p.html, "\r\n", "\n"); got != m.HTML {
					t.Errorf("HTML part differs after the round trip")
				}
				if p.subject != m.Subject || !strings.HasSuffix(p.subject, " with <script>alert(1)</script> (game 01935f3c-7b2a)") {
					t.Errorf("subject %q, want %q", p.subject, m.Subject)
				}
				if p.to.Name != "Zoë Ñúñez 漢字" || p.to.Address != "zoe@example.net" {
					t.Errorf("To = %+v", p.to)
				}
				checkHeaders(t, p.header)
				checkText(t, m, board)
				checkHTML(t, m)
			})
		}
	}
}

// checkWire checks the bytes on the wire: CRLF only, ASCII only, and lines
// within RFC 5322's limits (78 for headers, 76 for quoted-printable); only
// a folded line holding one token that cannot be broken may be longer.
func checkWire(t *testing.T, raw []byte) {
	t.Helper()
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("bare LF on the wire")
	}
	for i, c := range raw {
		if c >= 0x80 {
			t.Fatalf("non-ASCII byte at %d", i)
		}
	}
	head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n") {
		// A field's own line carries its value (or the value's start): a
		// name alone reads as an empty field to many programs.
		if name, value, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") && strings.TrimSpace(value) == "" {
			t.Errorf("header field %s: its line has no value", name)
		}
		if len(line) > 998 {
			t.Errorf("header line of %d bytes: %q", len(line), line)
		}
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 78 && !(strings.Contains(line, ":") && !strings.HasPrefix(line, " ") && strings.Count(line, " ") == 1) &&
			!(strings.HasPrefix(line, " ") && !strings.Contains(line[1:], " ") && len(line) <= 998) {
			t.Errorf("wire line of %d bytes: %q", len(line), line)
		}
	}
}

func checkHeaders(t *testing.T, h mail.Header) {
	t.Helper()
	root := firstMail
	want := map[string]string{
		"Reply-To":              "play+" + token + "@azul.example.org",
		"In-Reply-To":           root,
		"References":            root,
		"List-Unsubscribe":      "<https://azul.example.org/v1/mail/stop?token=" + token + ">, <mailto:play+" + token + "@azul.example.org?subject=stop>",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"Auto-Submitted":        "auto-generated",
		"Mime-Version":          "1.0",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	id, version, seat, ok := ParseMessageID(h.Get("Message-Id"), "AZUL.example.org")
	if !ok || id != gameID || version != 17 || seat != 0 {
		t.Errorf("Message-ID %q parses to %q %d %d %v", h.Get("Message-Id"), id, version, seat, ok)
	}
	if d, err := h.Date(); err != nil || !d.Equal(now) {
		t.Errorf("Date %v: %v", d, err)
	}
}

// checkText checks the text part: short lines except the board, and the
// parts every mail has.
func checkText(t *testing.T, m Mail, boardText string) {
	t.Helper()
	board := map[string]bool{}
	for _, l := range strings.Split(boardText, "\n") {
		board[l] = true
	}
	for _, l := range strings.Split(m.Text, "\n") {
		if n := utf8.RuneCountInString(l); n > 78 && !board[l] {
			t.Errorf("text line of %d characters: %q", n, l)
		}
	}
	for _, want := range []string{
		"Hello Zoë Ñúñez 漢字,",
		"https://azul.example.org/games/" + gameID,
		`reply "stop"`,
		"https://azul.example.org/v1/mail/stop?token=" + token,
	} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

func checkHTML(t *testing.T, m Mail) {
	t.Helper()
	if strings.Contains(m.HTML, "<script>") {
		t.Error("HTML holds an unescaped <script>")
	}
	for _, want := range []string{
		`<a href="https://azul.example.org/games/` + gameID + `">`,
		`<a href="https://azul.example.org/v1/mail/stop?token=` + token + `">`,
		"Zoë Ñúñez 漢字",
	} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestMoveMailsShowBoardMovesAndVersion(t *testing.T) {
	for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
		s := table(t, ruleset, 3)
		g := info(s, "Ann", "<b>Bob</b>", "Cy")
		moves := s.LegalMoves(0)
		if len(moves) < 2 {
			t.Fatalf("%s: %d legal moves", ruleset, len(moves))
		}
		r := Recipient{Name: "Ann", Address: "ann@example.net", SeatToken: token}
		for name, m := range map[string]Mail{
			"turn":     Turn(sender, r, g, moves, &deadline, now),
			"reminder": Reminder(sender, r, g, moves, deadline, now),
			"refused":  Refused(sender, r, g, "no such move", moves, now),
		} {
			t.Run(ruleset+"/"+name, func(t *testing.T) {
				for _, l := range strings.Split(strings.TrimRight(blocksText(drawView(en, g, 0)), "\n"), "\n") {
					if !strings.Contains(m.Text, l+"\n") {
						t.Fatalf("text lacks board line %q", l)
					}
				}
				if !strings.Contains(m.HTML, "<pre") || !strings.Contains(m.HTML, "&lt;b&gt;Bob&lt;/b&gt;") {
					t.Error("HTML lacks the board or the escaped name")
				}
				if !strings.Contains(m.Text, "Your legal moves at version 17:") || !strings.Contains(m.HTML, "Your legal moves at version 17:") {
					t.Error("version of the numbers not shown")
				}
				for i, mv := range moves {
					if !strings.Contains(m.Text, strconv.Itoa(i+1)+". "+mv.Notation) {
						t.Fatalf("text lacks move %d %q", i+1, mv.Notation)
					}
				}
				if !strings.Contains(m.Text, "the number, the notation or the JSON") {
					t.Error("reply hint missing")
				}
				if strings.Count(m.HTML, "<li ") != len(moves) {
					t.Errorf("HTML lists %d moves, want %d", strings.Count(m.HTML, "<li "), len(moves))
				}
				if strings.Contains(m.Subject, "\n") || len([]rune(m.Subject)) > 100 {
					t.Errorf("subject %q", m.Subject)
				}
			})
		}
	}
}

func TestSubjects(t *testing.T) {
	mails, _ := everyMail(t, "summer-pavilion")
	// Each kind says what it wants, and names the game by its name, the
	// other players and its short id (two games with the same players
	// must read apart in an inbox).
	want := map[string]string{
		"turn":       "Your turn in Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"turn-free":  "Your turn in Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"reminder":   "Reminder: your turn in Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"invitation": "Invitation to Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"started":    "New game of Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"over":       "Game over in Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"accepted":   "Move played in Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"refused":    "Move refused in Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
		"takeback":   "Take-back asked in Azul: Summer Pavilion with <script>alert(1)</script> (game 01935f3c-7b2a)",
	}
	for kind, m := range mails {
		if m.Subject != want[kind] {
			t.Errorf("%s: subject %q, want %q", kind, m.Subject, want[kind])
		}
		// The thread is kept by the headers, whatever the subject.
		if m.InReplyTo != firstMail || len(m.References) != 1 || m.References[0] != firstMail {
			t.Errorf("%s: not threaded on the first mail: In-Reply-To %q, References %q", kind, m.InReplyTo, m.References)
		}
	}
	s := table(t, "azul-mini", 4)
	g := info(s, "Ann", "Bob", "Cy", "Dee")
	r := Recipient{Name: "Bob", Address: "bob@example.net", Seat: 1, SeatToken: token}
	g.Started = true
	if got, want := Turn(sender, r, g, s.LegalMoves(1), nil, now).Subject, "Your turn in a new game of Azul Mini with Ann, Cy and Dee (game 01935f3c-7b2a)"; got != want {
		t.Errorf("subject %q, want %q", got, want)
	}
}

// TestSubjectsTellGamesApart: the turn mails of two games against the
// same opponent have different subjects, in every language: each names
// its game's short id, which differs for two games created a second
// apart (their ids' first 8 digits are the same).
func TestSubjectsTellGamesApart(t *testing.T) {
	s := table(t, "azul-mini", 2)
	one, two := info(s, "Ann", "Ana"), info(s, "Ann", "Ana")
	two.ID = "01935f3c-7f12-7cde-8f00-1a2b3c4d5e70"
	for _, lang := range []string{"en", "nl", "de", "it"} {
		r := Recipient{Name: "Ann", Address: "ann@example.net", Seat: 0, SeatToken: token, Lang: lang}
		a, b := Turn(sender, r, one, s.LegalMoves(0), nil, now).Subject, Turn(sender, r, two, s.LegalMoves(0), nil, now).Subject
		if a == b || !strings.Contains(a, "01935f3c-7b2a") || !strings.Contains(b, "01935f3c-7f12") || !strings.Contains(a, "Ana") {
			t.Errorf("%s: the two games' subjects are %q and %q", lang, a, b)
		}
	}
}

// Where a mail shows a short game id, it is the id's head, as on the game
// page and in the terminal client.
func TestShortIDIsTheHead(t *testing.T) {
	mails, _ := everyMail(t, "azul-mini")
	for kind, m := range mails {
		if !strings.Contains(flat(m.Text), "(game 01935f3c-7b2a)") || strings.Contains(m.Text, "(game 3c4d5e6f)") {
			t.Errorf("%s: the short id is not the id's head:\n%s", kind, m.Text)
		}
	}
	for id, want := range map[string]string{gameID: "01935f3c-7b2a", "g1": "g1", "x-starts-with-x": "xstartswithx", "": "?"} {
		if got := ShortID(id); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestMessageIDs(t *testing.T) {
	for _, id := range []string{gameID, "g1", "x-starts-with-x", "with space/and.dot", "ünïcode"} {
		mid := MessageID(sender, id, 42, 3, "turn")
		if !strings.HasPrefix(mid, "<") || !strings.HasSuffix(mid, "@azul.example.org>") || strings.ContainsAny(mid[1:len(mid)-1], " <>\r\n") {
			t.Fatalf("MessageID %q", mid)
		}
		if _, err := mail.ParseAddress("x " + mid); err != nil {
			t.Errorf("%q is not an addr-spec in brackets: %v", mid, err)
		}
		gid, v, seat, ok := ParseMessageID(mid, sender.Domain)
		if !ok || gid != id || v != 42 || seat != 3 {
			t.Errorf("round trip of %q: %q %d %d %v", id, gid, v, seat, ok)
		}
	}
	if a, b := MessageID(sender, gameID, 1, 0, "turn"), MessageID(sender, gameID, 1, 1, "turn"); a == b {
		t.Error("seats share a Message-ID")
	}
	r := Recipient{Name: "A", Address: "a@example.net", SeatToken: token}
	g := GameInfo{ID: gameID, Ruleset: "azul-mini", Version: 5}
	if Refused(sender, r, g, "x", nil, now).MessageID == Refused(sender, r, g, "x", nil, now.Add(time.Second)).MessageID {
		t.Error("two refusals at one version share a Message-ID")
	}
	if Turn(sender, r, g, nil, nil, now).MessageID != Turn(sender, r, g, nil, nil, now.Add(time.Hour)).MessageID {
		t.Error("a re-rendered turn mail changed its Message-ID")
	}
	for _, bad := range []string{"", "<>", "<a@b>", "<azuld.g.1.0.turn@other.org>", "<azuld.g.x.0.turn@azul.example.org>",
		"<azuld.g.1.-1.turn@azul.example.org>", "<azuld.g.game@azul.example.org>", "<azuld.xzz.1.0.turn@azul.example.org>"} {
		if _, _, _, ok := ParseMessageID(bad, sender.Domain); ok {
			t.Errorf("ParseMessageID(%q) ok", bad)
		}
	}
}

func TestHostileInputsCannotBreakHeaders(t *testing.T) {
	g := GameInfo{ID: gameID, Ruleset: "azul-mini\r\nBcc: x@evil.example", Version: 1, Board: "board"}
	r := Recipient{Name: "Eve\r\nBcc: all@example.net", Address: "eve@example.net", SeatToken: "abc\r\nBcc: y@evil.example>"}
	m := Turn(sender, r, g, nil, nil, now)
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Header["Bcc"]) > 0 {
		t.Fatal("a Bcc header was injected")
	}
	// A header set by hand with a line break is refused, not written.
	m.InReplyTo = "<a@b>\r\nBcc: z@evil.example"
	if _, err := m.Bytes(); err == nil {
		t.Fatal("Bytes wrote a header with a line break")
	}
}

func TestGameOverShowsResult(t *testing.T) {
	mails, _ := everyMail(t, "azul-mini")
	m := mails["over"]
	for _, want := range []string{"1. <script>alert(1)</script>: 57 points", "2. Zoë Ñúñez 漢字: 41 points", "<script>alert(1)</script> wins."} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if strings.Contains(m.Text, "Your legal moves") {
		t.Error("a finished game lists moves")
	}
	if inv := mails["invitation"]; strings.Contains(inv.Text, "Scores:") || strings.Contains(inv.HTML, "Scores:") {
		t.Error("an invitation shows scores")
	}
}

// TestGolden keeps one whole mail on file, so a change of the layout shows
// up in review. Run with -update to rewrite it.
func TestGolden(t *testing.T) {
	s := table(t, "azul-mini", 2)
	g := info(s, "Ann", "Bob")
	r := Recipient{Name: "Ann", Address: "ann@example.net", Seat: 0, SeatToken: token, Thread: firstMail}
	m := Turn(sender, r, g, s.LegalMoves(0), &deadline, now)
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "turn-azul-mini.eml")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if !bytes.Equal(raw, want) {
		t.Errorf("turn mail differs from %s (run go test -update and review the diff)", path)
	}
}

func FuzzParseMessageID(f *testing.F) {
	f.Add(MessageID(sender, gameID, 17, 0, "turn"), "azul.example.org")
	f.Add(MessageID(sender, "with space", 1, 2, "refused-abc"), "AZUL.example.org")
	f.Add("<azuld.x.1.2.3@d>", "d")
	f.Fuzz(func(t *testing.T, id, domain string) {
		gid, version, seat, ok := ParseMessageID(id, domain)
		if !ok {
			return
		}
		// What parses is a game, version and seat we can write again.
		s := Sender{Domain: domain}
		g2, v2, s2, ok2 := ParseMessageID(MessageID(s, gid, version, seat, "turn"), domain)
		if !ok2 || g2 != gid || v2 != version || s2 != seat {
			t.Fatalf("%q -> %q %d %d does not round-trip", id, gid, version, seat)
		}
	})
}

func BenchmarkTurnMail(b *testing.B) {
	s := table(b, "summer-pavilion", 4)
	g := info(s, "Ann", "Bob", "Cy", "Di")
	r := Recipient{Name: "Ann", Address: "ann@example.net", SeatToken: token}
	moves := s.LegalMoves(0)
	for b.Loop() {
		m := Turn(sender, r, g, moves, &deadline, now)
		if _, err := m.Bytes(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(moves)), "moves")
}

// TestGoldenNews keeps the text of a turn mail that tells what happened
// since the reader's last move, a round's end included, on file.
func TestGoldenNews(t *testing.T) {
	s := table(t, "azul-mini", 2)
	g := info(s, "Ann", "Bob")
	g.Players[0].Score, g.Players[1].Score = 7, 0
	g.News = []NewsItem{
		{Text: "Bob took 3 red from F2: 2 to line 2, 1 to the floor."},
		{Scoring: &RoundScoring{Round: 1, Seats: []SeatScoring{
			{Seat: 0, Items: []string{"blue from line 1 to the wall: +1", "yellow from line 3 to the wall: +2", "floor, 1 tile: −1"}, Gained: 2, Score: 7},
			{Seat: 1, Items: []string{"red from line 2 to the wall: +1", "floor, 3 tiles: −2 (of −4: a score does not go below 0)"}, Gained: -1, Score: 0},
		}}},
		{Text: "Round 2 began; Bob starts."},
		{Text: "Bob took 1 black and the start marker from the centre: 1 to line 4."},
	}
	r := Recipient{Name: "Ann", Address: "ann@example.net", Seat: 0, SeatToken: token, Thread: firstMail}
	m := Turn(sender, r, g, s.LegalMoves(0), &deadline, now)
	path := filepath.Join("testdata", "turn-news-azul-mini.txt")
	if *update {
		if err := os.WriteFile(path, []byte(m.Text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if m.Text != string(want) {
		t.Errorf("turn mail text differs from %s (run go test -update and review the diff)", path)
	}
	for _, line := range []string{"Round 1 was scored:", "<b>Ann (you)</b>", "7 points (", "0 points (−1)", "Then:", "<li>Round 2 began; Bob starts.</li>"} {
		if !strings.Contains(m.HTML, line) {
			t.Errorf("the HTML part lacks %q", line)
		}
	}
}
