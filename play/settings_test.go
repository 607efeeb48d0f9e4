package play_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

func ptr[T any](v T) *T { return &v }

const publicSeed = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

func TestSettingsDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana := e.register(t, "Ana")
	for _, c := range []struct {
		name string
		req  play.CreateGame
		want play.Settings
	}{
		{"no settings", play.CreateGame{}, play.Settings{Rated: true, Visibility: play.VisibilityPublic, Takebacks: false, Chat: play.ChatPlayers}},
		{"a public seed", play.CreateGame{Seed: publicSeed}, play.Settings{Rated: false, Visibility: play.VisibilityPrivate, Takebacks: true, Chat: play.ChatPlayers}},
		{"unrated", play.CreateGame{Rated: ptr(false)}, play.Settings{Rated: false, Visibility: play.VisibilityPrivate, Takebacks: true, Chat: play.ChatPlayers}},
		{"a seed, public", play.CreateGame{Seed: publicSeed, Rated: ptr(false), Visibility: play.VisibilityPublic},
			play.Settings{Rated: false, Visibility: play.VisibilityPublic, Takebacks: true, Chat: play.ChatPlayers}},
		{"rated, private, take-backs", play.CreateGame{Rated: ptr(true), Visibility: play.VisibilityPrivate, Takebacks: ptr(true)},
			play.Settings{Rated: true, Visibility: play.VisibilityPrivate, Takebacks: true, Chat: play.ChatPlayers}},
		{"unrated without take-backs", play.CreateGame{Rated: ptr(false), Takebacks: ptr(false)},
			play.Settings{Rated: false, Visibility: play.VisibilityPrivate, Takebacks: false, Chat: play.ChatPlayers}},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.Ruleset, req.Seats = "azul-mini", []play.SeatSpec{{Player: "me"}, {Bot: "random"}}
			g, err := e.svc.CreateGame(ctx, ana, req, "")
			if err != nil {
				t.Fatal(err)
			}
			if g.Settings != c.want {
				t.Errorf("created: %+v, want %+v", g.Settings, c.want)
			}
			if v := g.View(); v.Settings != c.want {
				t.Errorf("view: %+v, want %+v", v.Settings, c.want)
			}
			// Folded again from the log, and as the read model keeps it.
			again, err := e.svc.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			if again.Settings != c.want {
				t.Errorf("folded: %+v, want %+v", again.Settings, c.want)
			}
			row := g.Row()
			if row.Unrated != !c.want.Rated || row.Private != (c.want.Visibility == play.VisibilityPrivate) {
				t.Errorf("row: unrated %v private %v, want settings %+v", row.Unrated, row.Private, c.want)
			}
		})
	}
}

func TestSettingsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana := e.register(t, "Ana")
	for _, c := range []struct {
		name, code string
		req        play.CreateGame
	}{
		{"rated with a seed", "rated_seed", play.CreateGame{Seed: publicSeed, Rated: ptr(true)}},
		{"unknown visibility", "visibility", play.CreateGame{Visibility: "friends"}},
		{"visibility in capitals", "visibility", play.CreateGame{Visibility: "PUBLIC"}},
	} {
		req := c.req
		req.Ruleset, req.Seats = "azul-mini", []play.SeatSpec{{Player: "me"}, {Bot: "random"}}
		_, err := e.svc.CreateGame(ctx, ana, req, "")
		var input *play.InputError
		if !errors.Is(err, play.ErrInvalid) || !errors.As(err, &input) || input.Code != c.code {
			t.Errorf("%s: %v, want an invalid request with code %s", c.name, err, c.code)
		}
	}
	if !strings.Contains(fmt.Sprint(func() error {
		_, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}},
			Seed: publicSeed, Rated: ptr(true)}, "")
		return err
	}()), "public seed cannot be rated") {
		t.Error("the refusal of a rated seeded game does not say why")
	}
	rows, _, err := e.svc.ListGames(ctx, projections.Filter{Everything: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Errorf("refused games were created: %d", len(rows))
	}
}

// A game.created written before the settings existed has none of their
// fields: it folds as today's games were, rated and public, take-backs
// allowed.
func TestOldCreatedPayloadFoldsAsRatedPublic(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana := e.register(t, "Ana")
	id := uuid.NewString()
	old := fmt.Sprintf(`{"config":{"ruleset":"azul-mini","players":2},"seats":[{"seat":0,"player_id":%q},{"seat":1}],`+
		`"seed_commitment":"%s","created_by":%q}`, ana.ID, strings.Repeat("ab", 32), ana.ID)
	if _, err := e.store.Append(ctx, events.AppendRequest{
		StreamID: id, Events: []events.NewEvent{{Type: play.EvGameCreated, Schema: 1, Data: []byte(old)}},
		Meta: events.Meta{Actor: events.Actor{Kind: "player", PlayerID: ana.ID}, Channel: "api", CommandID: uuid.NewString()},
	}); err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.Game(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := play.Settings{Rated: true, Visibility: play.VisibilityPublic, Takebacks: true, Chat: play.ChatPlayers}
	if g.Settings != want {
		t.Errorf("old payload folds as %+v, want %+v", g.Settings, want)
	}
	recs, err := e.store.Load(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	row, err := e.svc.FoldRow(ctx, id, recs)
	if err != nil {
		t.Fatal(err)
	}
	if row.Unrated || row.Private {
		t.Errorf("old payload's row: unrated %v private %v, want rated and public", row.Unrated, row.Private)
	}
}

func TestTakebackRefusedWhenOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	// Rated, so take-backs are off by default.
	g, err := e.createAccepted(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if g.Takebacks {
		t.Fatal("a rated game allows take-backs by default")
	}
	seat := g.ToAct()[0]
	mover := ana
	if g.Seats[seat].PlayerID == ben.ID {
		mover = ben
	}
	res, err := e.svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: mover.ID},
		Move: g.LegalMoves(seat)[0].JSON, Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.RequestTakeback(ctx, play.TakebackRequest{GameID: g.ID, Player: mover, Seat: &seat, Channel: "api"})
	if !errors.Is(err, play.ErrTakebacksOff) {
		t.Fatalf("take-back in a game without them: %v, want ErrTakebacksOff", err)
	}
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != res.Version || after.PendingTakeback() != nil {
		t.Errorf("the refused take-back wrote events: version %d, want %d", after.Version, res.Version)
	}
}
