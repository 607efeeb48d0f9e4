package mailtest

import (
	"context"
	"mime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// Register registers a player whose address is the name in lower case
// at example.org.
func (e *Env) Register(name string) play.Player {
	e.T.Helper()
	p, _, err := e.Svc.RegisterPlayer(context.Background(), name, strings.ToLower(name)+"@example.org", play.Preferences{})
	if err != nil {
		e.T.Fatal(err)
	}
	return p
}

// RegisterIn registers a player who reads lang in zone.
func (e *Env) RegisterIn(name, lang, zone string) play.Player {
	e.T.Helper()
	p, _, err := e.Svc.RegisterPlayer(context.Background(), name, strings.ToLower(name)+"@example.org", play.Preferences{Language: lang, TimeZone: zone})
	if err != nil {
		e.T.Fatal(err)
	}
	return p
}

// EventCount is the length of a game's log.
func (e *Env) EventCount(gameID string) int64 {
	e.T.Helper()
	g, err := e.Svc.Game(context.Background(), gameID)
	if err != nil {
		e.T.Fatal(err)
	}
	return g.Version
}

// CreateAccepted is CreateGame followed by every invited player's
// acceptance (a join): the game as a test of a running game needs it.
func CreateAccepted(ctx context.Context, svc *play.Service, creator play.Player, req play.CreateGame, key string) (*play.Game, error) {
	g, err := svc.CreateGame(ctx, creator, req, key)
	if err != nil {
		return nil, err
	}
	for _, id := range g.Awaiting() {
		if g, err = svc.Join(ctx, g.ID, play.Player{ID: id}, nil); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// NewPavilion creates a 2-player Summer Pavilion game of ana (seat 0) and
// ben (seat 1), created by ana.
func (e *Env) NewPavilion(ana, ben play.Player, tc *play.TimeControl) *play.Game {
	e.T.Helper()
	return e.NewGame("summer-pavilion", ana, ben, tc)
}

// NewGame creates a 2-player game of ruleset for a (seat 0) and b,
// created by a.
func (e *Env) NewGame(ruleset string, a, b play.Player, tc *play.TimeControl) *play.Game {
	e.T.Helper()
	g, err := CreateAccepted(context.Background(), e.Svc, a, play.CreateGame{
		Ruleset: ruleset, Seats: []play.SeatSpec{{Player: "me"}, {Player: b.ID}},
		Seed: strings.Repeat("5a", 32), TimeControl: tc,
	}, "")
	if err != nil {
		e.T.Fatal(err)
	}
	return g
}

// WaitOpeningMails waits for the mails of a new game from NewPavilion,
// which starts as it is created: one mail to each player (the turn mail
// to the seat to move, which also tells of the start; the start mail to
// the other), the first within limit.
func (e *Env) WaitOpeningMails(g *play.Game, ana, ben play.Player, limit time.Duration) {
	e.T.Helper()
	toAct := g.ToAct()[0]
	for seat, p := range []play.Player{ana, ben} {
		kind := compose.KindStarted
		if seat == toAct {
			kind = compose.KindTurn
		}
		e.Relay.WaitWithin(e.T, limit, kind+" to "+p.Name, func(m Mail) bool { return m.Kind == kind && slices.Contains(m.To, p.Email) })
	}
}

// MoveFirst plays, through the API channel, the first legal move of the
// seat to act in g, a game from NewPavilion.
func (e *Env) MoveFirst(g *play.Game, ana, ben play.Player) *play.MoveResult {
	e.T.Helper()
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	res, err := e.Svc.Move(context.Background(), play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: p.ID}, Seat: &seat, Move: g.LegalMoves(seat)[0].JSON, Channel: "api"})
	if err != nil {
		e.T.Fatal(err)
	}
	return res
}

// EndByResignation ends a game from NewPavilion: the seat to act
// resigns. It returns the finished game.
func (e *Env) EndByResignation(g *play.Game) *play.Game {
	e.T.Helper()
	seat := g.ToAct()[0]
	res, err := e.Svc.Move(context.Background(), play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: g.Seats[seat].PlayerID},
		Seat: &seat, Notation: "resign", Channel: "api"})
	if err != nil {
		e.T.Fatal(err)
	}
	if res.Game.Status != play.StatusFinished {
		e.T.Fatalf("after the resignation the game is %s", res.Game.Status)
	}
	return res.Game
}

// TurnMail waits for the "your turn" mail of a seat at a version.
func (e *Env) TurnMail(gameID string, seat int, version int64) Mail {
	e.T.Helper()
	return e.Relay.Wait(e.T, "turn (seat "+strconv.Itoa(seat)+", version "+strconv.FormatInt(version, 10)+")", func(m Mail) bool {
		return m.Kind == compose.KindTurn && m.Game == gameID && m.Seat == seat && m.Version == version
	})
}

// WaitVersion waits until the game passes a version, and returns it.
func (e *Env) WaitVersion(gameID string, after int64) *play.Game {
	e.T.Helper()
	var g *play.Game
	eventually.True(e.T, 30*time.Second, func() bool {
		var err error
		if g, err = e.Svc.Game(context.Background(), gameID); err != nil {
			e.T.Fatal(err)
		}
		return g.Version > after
	}, "game %s stayed at version %d", gameID, after)
	return g
}

// FireTimers makes a game's pending time-control timers of one action
// due now, as if the clock had reached them.
func (e *Env) FireTimers(gameID, action string) {
	e.T.Helper()
	tag, err := e.Pool.Exec(context.Background(), `
		UPDATE river_job SET scheduled_at = now(), state = 'available'
		WHERE kind = 'azuld_timeout' AND state = 'scheduled' AND args->>'game_id' = $1 AND args->>'action' = $2`, gameID, action)
	if err != nil || tag.RowsAffected() == 0 {
		e.T.Fatalf("fire %s timers: %d rows, %v", action, tag.RowsAffected(), err)
	}
}

// Verifying turns on the verification of addresses before mail
// (AZUL_VERIFY_ADDRESSES), for Options.Notify.
func Verifying(c *notify.Config) { c.VerifyAddresses = true }

// MarkVerified verifies the players' addresses, as the link of the
// verification mail does.
func (e *Env) MarkVerified(ps ...play.Player) {
	e.T.Helper()
	for _, p := range ps {
		if err := notify.MarkVerified(context.Background(), e.Pool, p.ID); err != nil {
			e.T.Fatal(err)
		}
	}
}

// Status reads a player's address status as the API shows it.
func (e *Env) Status(p play.Player) string {
	e.T.Helper()
	got, err := e.Svc.Player(context.Background(), p.ID)
	if err != nil {
		e.T.Fatal(err)
	}
	return got.EmailStatus
}

// Skipped waits for the delivery log to say why a mail to a seat of a
// game was not sent, and returns the reason.
func (e *Env) Skipped(gameID string, seat int, kind string) string {
	e.T.Helper()
	var detail string
	eventually.True(e.T, 30*time.Second, func() bool {
		err := e.Pool.QueryRow(context.Background(), `
			SELECT detail FROM deliveries WHERE game_id = $1 AND seat = $2 AND kind = $3 AND outcome = 'skipped'
			ORDER BY id DESC LIMIT 1`, gameID, seat, "mail:"+kind).Scan(&detail)
		return err == nil
	}, "no skipped %s mail to seat %d of game %s in the delivery log", kind, seat, gameID)
	return detail
}

// MailsTo counts the mails of a kind the relay received for an address.
func (e *Env) MailsTo(kind, address string) int {
	n := 0
	for _, m := range e.Relay.All() {
		if m.Kind == kind && slices.Contains(m.To, address) {
			n++
		}
	}
	return n
}

// TalkMailsTo are the message mails the relay has for an address.
func (e *Env) TalkMailsTo(addr string) []Mail {
	var out []Mail
	for _, m := range e.Relay.All() {
		if m.Kind == compose.KindTalk && slices.Contains(m.To, addr) {
			out = append(out, m)
		}
	}
	return out
}

// MailsWith counts the mails to addr whose text holds s.
func (e *Env) MailsWith(addr, s string) int {
	n := 0
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, addr) && strings.Contains(m.Text, s) {
			n++
		}
	}
	return n
}

// Flat is a text with its runs of white space (line breaks too) one
// space.
func Flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// FlatText is a mail's text, Flat.
func FlatText(m Mail) string { return Flat(m.Text) }

// SubjectOf is a mail's decoded subject.
func SubjectOf(m Mail) string {
	s, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	return s
}
