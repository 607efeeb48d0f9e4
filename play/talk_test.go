package play_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/azuld/azuld/events"

	"github.com/azuld/azuld/play"
)

// talkGame is a running two-player game of ann and bob.
func talkGame(t *testing.T, e *env, chat string) (ann, bob play.Player, g *play.Game) {
	t.Helper()
	ann, bob = e.register(t, "Ann"), e.register(t, "Bob")
	g, err := e.createAccepted(context.Background(), ann, play.CreateGame{
		Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: bob.ID}}, Chat: chat,
	}, "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return ann, bob, g
}

func TestSayAndRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ann, bob, g := talkGame(t, e, "")
	before := viewJSON(t, g)

	m, err := e.svc.Say(ctx, g.ID, ann, "  good luck\r\nhave fun  ", "api", "k1")
	if err != nil {
		t.Fatalf("say: %v", err)
	}
	if m.Text != "good luck\nhave fun" || m.Author != "Ann" || m.Version != g.Version+1 || m.Channel != "api" {
		t.Fatalf("message %+v", m)
	}
	// The same key again: the same message, nothing appended.
	again, err := e.svc.Say(ctx, g.ID, ann, "good luck\nhave fun", "api", "k1")
	if err != nil || again.Version != m.Version {
		t.Fatalf("replay: %+v, %v", again, err)
	}
	// The fold ignores it: the state is the one before.
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	v := func(n int64) string { return `"version":` + strconv.FormatInt(n, 10) }
	if after.Version != m.Version || strings.Replace(viewJSON(t, after), v(m.Version), v(g.Version), 1) != before {
		t.Fatalf("a message changed the state:\n%s\n%s", before, viewJSON(t, after))
	}
	msgs, err := e.svc.Messages(ctx, g.ID, bob.ID, 0)
	if err != nil || len(msgs) != 1 || msgs[0].Text != m.Text {
		t.Fatalf("bob reads %+v, %v", msgs, err)
	}
	// A stranger writes nothing, and reads nothing of private chat.
	eve := e.register(t, "Eve")
	if _, err := e.svc.Say(ctx, g.ID, eve, "hi", "api", ""); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("a spectator wrote: %v", err)
	}
	if msgs, err := e.svc.Messages(ctx, g.ID, eve.ID, 0); err != nil || len(msgs) != 0 {
		t.Fatalf("a spectator reads %+v, %v", msgs, err)
	}
}

func TestCleanMessage(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"hi":                      "hi",
		"  two\r\nlines \r ":      "two\nlines",
		strings.Repeat("é", 500):  strings.Repeat("é", 500),
		"emoji 🎉 ok":              "emoji 🎉 ok",
		"\n\n padded \t\n":        "padded",
		"tab\tinside":             "",
		"nul\x00":                 "",
		"bidi \u202eevil":         "",
		"":                        "",
		"   \r\n ":                "",
		strings.Repeat("x", 501):  "",
		string([]byte{0xff, 'a'}): "",
	}
	for in, want := range good {
		got, err := play.CleanMessage(in)
		if want == "" {
			var input *play.InputError
			if err == nil || !errors.Is(err, play.ErrInvalid) || !errors.As(err, &input) {
				t.Errorf("%q: got %q, %v; want an input error", in, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
}

// FuzzCleanMessage: a cleaned message is what its rules say, and
// cleaning it again changes nothing.
func FuzzCleanMessage(f *testing.F) {
	for _, s := range []string{"hi", " a\r\nb ", "\x00", "\u202e", strings.Repeat("z", 501), "\r\r\n", "é\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := play.CleanMessage(in)
		if err != nil {
			if !errors.Is(err, play.ErrInvalid) {
				t.Fatalf("%q: %v is not ErrInvalid", in, err)
			}
			return
		}
		if n := utf8.RuneCountInString(out); n < 1 || n > play.MaxMessageRunes || strings.TrimSpace(out) != out || strings.ContainsRune(out, '\r') {
			t.Fatalf("%q cleaned to %q", in, out)
		}
		again, err := play.CleanMessage(out)
		if err != nil || again != out {
			t.Fatalf("%q cleaned twice: %q, %v", out, again, err)
		}
	})
}

// A move decided on the version before a message still goes through: the
// message changed nothing. One decided before a move does not.
func TestMoveAfterMessageKeepsItsVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ann, bob, g := talkGame(t, e, "")
	seat := g.ToAct()[0]
	mover := g.Seats[seat].PlayerID
	other := ann
	if mover == ann.ID {
		other = bob
	}
	expected := g.Version
	deadline := g.UpdatedAt
	if _, err := e.svc.Say(ctx, g.ID, other, "think hard", "api", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Say(ctx, g.ID, other, "really", "api", ""); err != nil {
		t.Fatal(err)
	}
	now, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if now.Version != expected+2 || now.StateVersion != expected || !now.UpdatedAt.Equal(deadline) {
		t.Fatalf("after two messages: version %d, state version %d (want %d), updated %v (was %v)", now.Version, now.StateVersion, expected, now.UpdatedAt, deadline)
	}
	move := now.LegalMoves(seat)[0]
	res, err := e.svc.Move(ctx, play.MoveRequest{
		GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: mover}, Seat: &seat,
		Move: move.JSON, ExpectedVersion: &expected, Channel: "api",
	})
	if err != nil {
		t.Fatalf("a move expecting the version before the messages: %v", err)
	}
	if res.Version <= expected+2 {
		t.Fatalf("the move went in at %d", res.Version)
	}
	// Now the same version is stale: a move came after it.
	g2, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g2.Status != play.StatusActive {
		return
	}
	next := g2.ToAct()[0]
	_, err = e.svc.Move(ctx, play.MoveRequest{
		GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: g2.Seats[next].PlayerID}, Seat: &next,
		Move: g2.LegalMoves(next)[0].JSON, ExpectedVersion: &expected, Channel: "api",
	})
	if !errors.Is(err, events.ErrConflict) {
		t.Fatalf("a move expecting a version before another move: %v, want a conflict", err)
	}
}

// Spectators of a public game read the table talk only when its chat is
// public, through Messages and the audit log; players always.
func TestTalkVisibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	eve := e.register(t, "Eve")
	for _, chat := range []string{play.ChatPlayers, play.ChatPublic} {
		ann, bob, g := talkGame(t, e, chat)
		if g.Chat != chat || g.Private() {
			t.Fatalf("chat %q: game %+v", chat, g.Settings)
		}
		m, err := e.svc.Say(ctx, g.ID, bob, "secret plan", "web", "")
		if err != nil {
			t.Fatal(err)
		}
		public := chat == play.ChatPublic
		msgs, err := e.svc.Messages(ctx, g.ID, eve.ID, 0)
		if err != nil || (len(msgs) == 1) != public {
			t.Errorf("chat %s: Eve reads %+v, %v", chat, msgs, err)
		}
		if msgs, err := e.svc.Messages(ctx, g.ID, "", 0); err != nil || (len(msgs) == 1) != public {
			t.Errorf("chat %s: a visitor reads %+v, %v", chat, msgs, err)
		}
		if msgs, err := e.svc.Messages(ctx, g.ID, ann.ID, m.Version-1); err != nil || len(msgs) != 1 || msgs[0].Author != "Bob" {
			t.Errorf("chat %s: Ann reads %+v, %v", chat, msgs, err)
		}
		if msgs, err := e.svc.Messages(ctx, g.ID, ann.ID, m.Version); err != nil || len(msgs) != 0 {
			t.Errorf("chat %s: after the message Ann reads %+v, %v", chat, msgs, err)
		}
		for _, viewer := range []string{eve.ID, "", ann.ID} {
			log, err := e.svc.AuditLog(ctx, g.ID, play.LogQuery{Viewer: viewer})
			if err != nil {
				t.Fatal(err)
			}
			may := public || viewer == ann.ID
			last := log[len(log)-1]
			if last.Type != play.EvMessage || strings.Contains(string(last.Data), "secret") != may || strings.Contains(last.Description, "secret") != may {
				t.Errorf("chat %s, viewer %q: the log shows %s %s", chat, viewer, last.Data, last.Description)
			}
		}
		var buf strings.Builder
		if err := e.svc.ExportFor(ctx, g.ID, eve.ID, &buf); err != nil || strings.Contains(buf.String(), "secret") == !public {
			t.Errorf("chat %s: the export to Eve: %v\n%s", chat, err, buf.String())
		}
		// The export without the text still imports and verifies.
		recs, err := play.ReadRecords(strings.NewReader(buf.String()))
		if err != nil {
			t.Fatal(err)
		}
		if v := play.VerifyRecords(e.svc.Rules(), recs); v.Result == play.VerifyFail {
			t.Errorf("chat %s: the export does not verify: %+v", chat, v.Mismatch)
		}
	}
}

// An erased player's messages stay, by a former player.
func TestTalkAfterErasure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ann, bob, g := talkGame(t, e, "")
	if _, err := e.svc.Say(ctx, g.ID, bob, "bye", "api", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetMuted(ctx, g.ID, bob.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteAccount(ctx, bob.ID); err != nil {
		t.Fatal(err)
	}
	msgs, err := e.svc.Messages(ctx, g.ID, ann.ID, 0)
	if err != nil || len(msgs) != 1 || msgs[0].Author != play.FormerPlayer || !msgs[0].Erased || msgs[0].Text != "bye" {
		t.Fatalf("after Bob's erasure Ann reads %+v, %v", msgs, err)
	}
	if _, err := e.svc.Say(ctx, g.ID, bob, "ghost", "api", ""); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("an erased player wrote: %v", err)
	}
	var n int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM game_mutes WHERE player_id = $1`, bob.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the erased player's mute stays: %d, %v", n, err)
	}
}

func TestMuteAndReport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ctx := context.Background()
	ann, bob, g := talkGame(t, e, play.ChatPublic)
	eve := e.register(t, "Eve")
	for _, want := range []bool{true, true, false} {
		if err := e.svc.SetMuted(ctx, g.ID, ann.ID, want); err != nil {
			t.Fatal(err)
		}
		if got, err := e.svc.Muted(ctx, g.ID, ann.ID); err != nil || got != want {
			t.Fatalf("muted %v, %v; want %v", got, err, want)
		}
	}
	if err := e.svc.SetMuted(ctx, g.ID, eve.ID, true); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("a spectator muted: %v", err)
	}
	m, err := e.svc.Say(ctx, g.ID, bob, "rude words", "api", "")
	if err != nil {
		t.Fatal(err)
	}
	if created, err := e.svc.ReportMessage(ctx, g.ID, ann, m.Version, "rude"); err != nil || !created {
		t.Fatalf("report: %v, %v", created, err)
	}
	if created, err := e.svc.ReportMessage(ctx, g.ID, ann, m.Version, "again"); err != nil || created {
		t.Fatalf("second report: %v, %v", created, err)
	}
	if _, err := e.svc.ReportMessage(ctx, g.ID, bob, m.Version, ""); !errors.Is(err, play.ErrInvalid) {
		t.Fatalf("own report: %v", err)
	}
	if _, err := e.svc.ReportMessage(ctx, g.ID, eve, m.Version, ""); !errors.Is(err, play.ErrForbidden) {
		t.Fatalf("a spectator reported: %v", err)
	}
	if _, err := e.svc.ReportMessage(ctx, g.ID, ann, 1, ""); !errors.Is(err, play.ErrNotFound) {
		t.Fatalf("reported game.created: %v", err)
	}
	reports, err := e.svc.Reports(ctx, 0)
	if err != nil || len(reports) != 1 || reports[0].Text != "rude words" || reports[0].Reason != "rude" || reports[0].AuthorID != bob.ID {
		t.Fatalf("reports %+v, %v", reports, err)
	}
}

// A rematch keeps the chat setting, as it keeps every setting.
func TestRematchKeepsChat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 64)
	ann, bob := e.register(t, "Ann"), e.register(t, "Bob")
	old := finishedGame(t, e, ann, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: bob.ID}}, Chat: play.ChatPublic})
	g, _, err := e.svc.Rematch(context.Background(), old.ID, bob, "api")
	if err != nil {
		t.Fatal(err)
	}
	if g.Chat != play.ChatPublic {
		t.Fatalf("the rematch's chat is %q", g.Chat)
	}
	if _, err := e.svc.Say(context.Background(), old.ID, ann, "gg", "api", ""); err != nil {
		t.Fatalf("a message after the end: %v", err)
	}
}
