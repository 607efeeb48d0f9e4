package play_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// takebackGame is one configuration of the random take-back games.
type takebackGame struct {
	ruleset string
	options engine.Options
	// seats: "ana", "ben", "cy" or a bot kind.
	seats []string
	// public gives the game a public seed.
	public bool
}

var takebackGames = []takebackGame{
	{"azul-mini", engine.Options{}, []string{"ana", "ben"}, true},
	{"azul-mini", engine.Options{Wall: "grey"}, []string{"ana", "random", "ben"}, true},
	{"summer-pavilion", engine.Options{}, []string{"ana", "ben", "cy", "random"}, true},
	{"summer-pavilion-mini", engine.Options{}, []string{"ana", "random"}, true},
	{"azul-mini", engine.Options{}, []string{"ana", "ana"}, true},
	// A secret seed: the draws are not known in advance, so the test
	// asserts no particular mix of outcomes.
	{"summer-pavilion", engine.Options{Board: "monochrome"}, []string{"ben", "ana"}, false},
}

// TestRandomGamesWithTakebacks plays random full games with random
// take-back requests interleaved (granted, declined, withdrawn, lapsed,
// refused) and checks after every step that the live state equals a
// fresh fold of the log, equals the fold of the standing line alone (the
// engine events minus the undone ones), that every version once current
// still replays as it was (undone branches included), and at the end that
// the game verifies and survives export and import.
func TestRandomGamesWithTakebacks(t *testing.T) {
	t.Parallel()
	for i, c := range takebackGames {
		t.Run(fmt.Sprintf("%s-%s", c.ruleset, strings.Join(c.seats, "-")), func(t *testing.T) {
			t.Parallel()
			playTakebackGame(t, c, uint64(i+1))
		})
	}
}

// takebackRun is the state of one random game.
type takebackRun struct {
	t       *testing.T
	e       *env
	plain   *play.Service
	players map[string]play.Player
	owner   map[int]play.Player
	rules   engine.Rules
	id      string
	// kept are the engine events of the standing line, by the test's own
	// account; seen is the number of log records read so far.
	kept []events.Record
	seen int64
	// views maps each version the game stood at to its state JSON.
	views map[int64]string
	// granted, declined, lapsed, refused count the take-back outcomes.
	granted, declined, lapsed, refused int
	// asked counts the requests that needed consent.
	asked int
}

func playTakebackGame(t *testing.T, c takebackGame, seed uint64) {
	e := newEnv(t, 3) // frequent snapshots: none may cover an undone event
	ctx := context.Background()
	r := &takebackRun{t: t, e: e, plain: newService(e.pool, e.store, -1), players: map[string]play.Player{},
		owner: map[int]play.Player{}, views: map[int64]string{}}
	var specs []play.SeatSpec
	for i, who := range c.seats {
		switch who {
		case "ana", "ben", "cy":
			p, ok := r.players[who]
			if !ok {
				p = e.register(t, strings.ToUpper(who[:1])+who[1:])
				r.players[who] = p
			}
			r.owner[i] = p
			specs = append(specs, play.SeatSpec{Player: p.ID})
		default:
			specs = append(specs, play.SeatSpec{Bot: who})
		}
	}
	// A rated game (no public seed) allows take-backs only when asked.
	takebacks := true
	req := play.CreateGame{Ruleset: c.ruleset, Options: c.options, Seats: specs, Takebacks: &takebacks}
	if c.public {
		req.Seed = fmt.Sprintf("%064x", seed)
	}
	g, err := e.createAccepted(ctx, r.players["ana"], req, "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	r.id, r.rules = g.ID, g.Rules
	r.check(g)
	rng := rand.New(rand.NewPCG(seed, 42))
	for step := 0; g.Status == play.StatusActive; step++ {
		if step > 3000 {
			t.Fatal("the game does not end")
		}
		if pending := g.PendingTakeback(); pending != nil {
			g = r.answer(g, pending, rng)
		} else if rng.IntN(4) == 0 {
			g = r.request(g, rng)
		} else {
			g = r.move(g, rng)
		}
		r.check(g)
	}
	// Public seeds make the games, and so the outcomes, reproducible.
	t.Logf("version %d: %d granted, %d declined, %d lapsed, %d refused", g.Version, r.granted, r.declined, r.lapsed, r.refused)
	if c.public && (r.granted == 0 || r.refused == 0 || (r.asked > 0 && r.declined == 0) || (r.asked > 0 && r.lapsed == 0)) {
		t.Errorf("the random game tried too little: %d granted, %d declined, %d lapsed, %d refused", r.granted, r.declined, r.lapsed, r.refused)
	}
	// Every version the game stood at replays as it was, undone
	// branches included.
	for v, want := range r.views {
		at, err := e.svc.GameAt(ctx, r.id, v)
		if err != nil {
			t.Fatal(err)
		}
		if got := viewJSON(t, at); got != want {
			t.Fatalf("state at version %d differs from the state the game showed then:\n got %s\nwant %s", v, got, want)
		}
	}
	r.checkAuditLog()
	r.checkVerifyExportImport(g)
}

// humanToAct is a seat a registered player holds among the seats to act.
func (r *takebackRun) humanToAct(g *play.Game) (int, bool) {
	for _, seat := range g.ToAct() {
		if _, ok := r.owner[seat]; ok {
			return seat, true
		}
	}
	return 0, false
}

// move plays a random legal move of a human seat to act.
func (r *takebackRun) move(g *play.Game, rng *rand.Rand) *play.Game {
	seat, ok := r.humanToAct(g)
	if !ok {
		r.t.Fatalf("no human seat to act at version %d (to act %v)", g.Version, g.ToAct())
	}
	// Resigning would end the game at once: the test plays on.
	legal := slices.DeleteFunc(g.LegalMoves(seat), func(m engine.Move) bool { return strings.HasPrefix(m.Notation, "resign") })
	m := legal[rng.IntN(len(legal))]
	if g.PendingTakeback() != nil {
		r.lapsed++
	}
	res, err := r.e.svc.Move(context.Background(), play.MoveRequest{
		GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: r.owner[seat].ID}, Seat: &seat,
		Move: m.JSON, Channel: "api",
	})
	if err != nil {
		r.t.Fatalf("move %s by seat %d at version %d: %v", m.Notation, seat, g.Version, err)
	}
	if res.Game.PendingTakeback() != nil {
		r.t.Fatal("a move must void the pending take-back")
	}
	return res.Game
}

// request asks a random human seat's take-back of 1 to 3 moves.
func (r *takebackRun) request(g *play.Game, rng *rand.Rand) *play.Game {
	seats := make([]int, 0, len(r.owner))
	for seat := range r.owner {
		seats = append(seats, seat)
	}
	slices.Sort(seats)
	seat := seats[rng.IntN(len(seats))]
	moves := 1 + rng.IntN(3)
	res, err := r.e.svc.RequestTakeback(context.Background(), play.TakebackRequest{
		GameID: g.ID, Player: r.owner[seat], Seat: &seat, Moves: moves, Channel: "api",
	})
	if errors.Is(err, play.ErrNothingToTakeBack) {
		r.refused++
		after, err := r.e.svc.Game(context.Background(), g.ID)
		if err != nil {
			r.t.Fatal(err)
		}
		if after.Version != g.Version {
			r.t.Fatal("a refused take-back request wrote events")
		}
		return after
	}
	if err != nil {
		r.t.Fatalf("take-back of %d move(s) by seat %d at version %d: %v", moves, seat, g.Version, err)
	}
	tb := res.Takeback
	if len(tb.Needs) > 0 {
		r.asked++
	}
	if len(tb.Needs) == 0 {
		if tb.Status != play.TakebackTakenBack {
			r.t.Fatalf("a take-back nobody must consent to is granted at once: %+v", tb)
		}
		r.granted++
	}
	return res.Game
}

// answer has the seats answer a pending take-back at random: every
// consent, one refusal, a withdrawal, or nothing (a move lapses it).
func (r *takebackRun) answer(g *play.Game, tb *play.Takeback, rng *rand.Rand) *play.Game {
	ctx := context.Background()
	switch k := rng.IntN(10); {
	case k < 5:
		var res *play.TakebackResult
		for _, seat := range tb.Needs {
			var err error
			res, err = r.e.svc.AnswerTakeback(ctx, g.ID, tb.ID, r.owner[seat], true, "web")
			if err != nil {
				r.t.Fatalf("consent of seat %d: %v", seat, err)
			}
			if res.Takeback.Status == play.TakebackTakenBack {
				break
			}
			// Consenting twice changes nothing.
			again, err := r.e.svc.AnswerTakeback(ctx, g.ID, tb.ID, r.owner[seat], true, "web")
			if err != nil || len(again.Events) != 0 {
				r.t.Fatalf("a second consent must write nothing: %v, %d events", err, len(again.Events))
			}
		}
		if res.Takeback.Status != play.TakebackTakenBack {
			r.t.Fatalf("every consent given, the take-back is %+v", res.Takeback)
		}
		r.granted++
		// A granted take-back is closed.
		if _, err := r.e.svc.AnswerTakeback(ctx, g.ID, tb.ID, r.owner[tb.Needs[0]], false, "api"); !errors.Is(err, play.ErrTakebackConflict) {
			r.t.Fatalf("declining a granted take-back: %v", err)
		}
		// The version before a request is no take-back request.
		if _, err := r.e.svc.AnswerTakeback(ctx, g.ID, tb.ID-1, r.owner[tb.Needs[0]], true, "api"); !errors.Is(err, play.ErrNotFound) {
			r.t.Fatalf("answering version %d, no take-back request: %v", tb.ID-1, err)
		}
		return res.Game
	case k < 8:
		decliner := tb.Seat
		if k < 7 {
			decliner = tb.Needs[rng.IntN(len(tb.Needs))]
		}
		res, err := r.e.svc.AnswerTakeback(ctx, g.ID, tb.ID, r.owner[decliner], false, "email")
		if err != nil || res.Takeback.Status != play.TakebackDeclined {
			r.t.Fatalf("decline by seat %d: %v %+v", decliner, err, res)
		}
		r.declined++
		return res.Game
	}
	return r.move(g, rng)
}

// check compares the live game with a fresh fold of its log and with the
// fold of the standing line, and remembers the state at this version.
func (r *takebackRun) check(live *play.Game) {
	t := r.t
	ctx := context.Background()
	recs, err := r.e.store.Load(ctx, r.id, r.seen, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		r.account(rec)
	}
	r.seen = live.Version
	loaded, err := r.e.svc.Game(ctx, r.id)
	if err != nil {
		t.Fatal(err)
	}
	folded, err := r.plain.Game(ctx, r.id)
	if err != nil {
		t.Fatal(err)
	}
	want := viewJSON(t, live)
	if got := viewJSON(t, loaded); got != want {
		t.Fatalf("version %d: loaded (with snapshots) state differs from the live one:\n got %s\nwant %s", live.Version, got, want)
	}
	if got := viewJSON(t, folded); got != want {
		t.Fatalf("version %d: fold(events) differs from the live state:\n got %s\nwant %s", live.Version, got, want)
	}
	// The standing line alone folds to the same table.
	var evs []engine.Event
	for _, rec := range r.kept {
		ev, err := r.rules.DecodeEvent(rec.Type, rec.Schema, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if live.State != nil {
		state, err := engine.Fold(r.rules, nil, evs)
		if err != nil {
			t.Fatalf("the standing line does not fold: %v", err)
		}
		if got, want := mustJSON(t, state.View()), mustJSON(t, live.State.View()); got != want {
			t.Fatalf("version %d: the standing line's state differs from the live one:\n got %s\nwant %s", live.Version, got, want)
		}
	}
	r.views[live.Version] = want
}

// account adds a record to the test's own account of the standing line.
func (r *takebackRun) account(rec events.Record) {
	t := r.t
	if !strings.Contains(rec.Type, ".") {
		r.kept = append(r.kept, rec)
		return
	}
	if rec.Type != play.EvTakenBack {
		return
	}
	var tb struct {
		Takeback  int64   `json:"takeback"`
		ToVersion int64   `json:"to_version"`
		Undone    []int64 `json:"undone"`
	}
	if err := json.Unmarshal(rec.Data, &tb); err != nil {
		t.Fatal(err)
	}
	cut := slices.IndexFunc(r.kept, func(k events.Record) bool { return k.Version > tb.ToVersion })
	if cut < 0 {
		t.Fatalf("take-back %d undoes nothing", tb.Takeback)
	}
	var suffix []int64
	for _, k := range r.kept[cut:] {
		suffix = append(suffix, k.Version)
	}
	if !slices.Equal(suffix, tb.Undone) {
		t.Fatalf("take-back %d undoes %v, the standing line after version %d is %v", tb.Takeback, tb.Undone, tb.ToVersion, suffix)
	}
	// It undoes whole moves, never a reveal.
	if first := r.kept[cut]; len(first.Meta.Command) == 0 || (cut > 0 && r.kept[cut-1].Meta.CommandID == first.Meta.CommandID &&
		r.kept[cut-1].Meta.Actor.PlayerID == first.Meta.Actor.PlayerID && r.kept[cut-1].Meta.Actor.Kind == first.Meta.Actor.Kind) {
		t.Fatalf("take-back %d starts inside a command", tb.Takeback)
	}
	before, after := r.reveals(r.kept[:cut]), r.reveals(r.kept)
	if before != after {
		t.Fatalf("take-back %d crosses a random reveal (%d reveals before, %d after)", tb.Takeback, before, after)
	}
	r.kept = r.kept[:cut]
}

// reveals counts the random reveals of a line of engine events.
func (r *takebackRun) reveals(recs []events.Record) int {
	var evs []engine.Event
	for _, rec := range recs {
		ev, err := r.rules.DecodeEvent(rec.Type, rec.Schema, rec.Data)
		if err != nil {
			r.t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	s, err := engine.Fold(r.rules, nil, evs)
	if err != nil || s == nil {
		r.t.Fatalf("fold: %v", err)
	}
	return s.Reveals()
}

// checkAuditLog checks the undone marks and descriptions of the log.
func (r *takebackRun) checkAuditLog() {
	t := r.t
	log, err := r.e.svc.AuditLog(context.Background(), r.id, play.LogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	standing := map[int64]bool{}
	for _, k := range r.kept {
		standing[k.Version] = true
	}
	for _, e := range log {
		engineEvent := !strings.Contains(e.Type, ".")
		if engineEvent && e.Undone == standing[e.Version] {
			t.Errorf("version %d (%s): undone=%v, standing=%v", e.Version, e.Type, e.Undone, standing[e.Version])
		}
		if e.Undone && e.UndoneBy <= e.Version {
			t.Errorf("version %d undone by %d", e.Version, e.UndoneBy)
		}
		if e.Description == "" || strings.Contains(e.Description, "\n") || strings.Contains(e.Description, "%!") {
			t.Errorf("version %d (%s): description %q", e.Version, e.Type, e.Description)
		}
		if e.Meta.Actor.Kind == "player" && e.Meta.Actor.Seat != nil && strings.Contains(e.Description, fmt.Sprintf("seat %d ", *e.Meta.Actor.Seat)) {
			t.Errorf("version %d: the description names the seat, not the player: %q", e.Version, e.Description)
		}
	}
	// In the pseudo-locale every word of every description comes from
	// the catalogue: only the players' names, seeds and ids are data.
	cat, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	pseudo, err := r.e.svc.AuditLog(context.Background(), r.id, play.LogQuery{Reader: cat.Localizer(i18n.Pseudo, nil)})
	if err != nil || len(pseudo) != len(log) {
		t.Fatalf("pseudo-locale log: %d events, %v", len(pseudo), err)
	}
	g, err := r.e.svc.Game(context.Background(), r.id)
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{g.SeedCommitment, g.Seed, "greedy", "random", "search"}
	for _, s := range g.Seats {
		allowed = append(allowed, s.Name)
	}
	for _, e := range pseudo {
		if words := i18n.Bypassed(e.Description, allowed...); len(words) > 0 {
			t.Errorf("version %d (%s): %q has %v outside the catalogue", e.Version, e.Type, e.Description, words)
		}
	}
	if m := cat.Missing(); len(m) > 0 {
		t.Errorf("missing messages: %v", m)
	}
	// A page after any version (folded from a snapshot) is that part of
	// the whole log.
	for after := 0; after < len(log); after += 7 {
		page, err := r.e.svc.AuditLog(context.Background(), r.id, play.LogQuery{After: int64(after), Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(log[after:min(after+5, len(log))])
		if got, _ := json.Marshal(page); string(got) != string(want) {
			t.Fatalf("the page after version %d differs from the whole log:\n%s\n%s", after, got, want)
		}
	}
	// A diff lists the events between its versions and ends at the state
	// of its later version.
	for _, span := range [][2]int{{2, len(log)}, {len(log) / 2, len(log)/2 + 9}, {5, 5}} {
		from, to := int64(span[0]), int64(min(span[1], len(log)))
		d, err := r.e.svc.Diff(context.Background(), r.id, from, to, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(log[from:to])
		if got, _ := json.Marshal(d.Events); string(got) != string(want) {
			t.Fatalf("diff %d..%d lists\n%s\nnot\n%s", from, to, got, want)
		}
		at, err := r.e.svc.GameAt(context.Background(), r.id, to)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(d.ToActTo), fmt.Sprint(at.ToAct()); got != want {
			t.Fatalf("diff %d..%d: to act %s, the game at %d has %s", from, to, got, to, want)
		}
		if from == to && len(d.Changes)+len(d.Scores) != 0 {
			t.Fatalf("diff %d..%d: %+v", from, to, d)
		}
	}
}

// checkVerifyExportImport: the finished game verifies, and its export
// imports as an identical game whose log verifies too.
func (r *takebackRun) checkVerifyExportImport(g *play.Game) {
	t := r.t
	ctx := context.Background()
	v, err := r.e.svc.Verify(ctx, r.id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Result != play.VerifyPass || v.Mismatch != nil || v.Reveals == 0 || v.Commands == 0 {
		t.Fatalf("verify: %+v %+v", v, v.Mismatch)
	}
	var buf bytes.Buffer
	if err := r.e.svc.Export(ctx, r.id, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := play.ReadRecords(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	imported, err := r.e.svc.ImportGame(ctx, recs)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	// The import ends with game.imported, one event more, which makes
	// it unrated.
	if imported.ID == g.ID || imported.Version != g.Version+1 || !imported.Imported || imported.Rated {
		t.Fatalf("imported %s at version %d (imported %v, rated %v), want a new id at version %d+1, imported, unrated",
			imported.ID, imported.Version, imported.Imported, imported.Rated, g.Version)
	}
	if a, b := comparableView(t, imported), comparableView(t, g); a != b {
		t.Fatalf("imported state differs:\n%s\n%s", a, b)
	}
	orig, err := r.e.store.Load(ctx, g.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := r.e.store.Load(ctx, imported.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(orig)+1 != len(copied) || copied[len(orig)].Type != play.EvImported {
		t.Fatalf("imported %d events, want %d and game.imported", len(copied), len(orig))
	}
	// The game's events are copied byte for byte; the players are named
	// by opaque ids, one for each player (TestImportSeatsNobody).
	ids := map[string]string{}
	for i := range orig {
		a, b := orig[i], copied[i]
		sameData := bytes.Equal(a.Data, b.Data) || strings.Contains(a.Type, ".")
		am, bm := a.Meta, b.Meta
		if am.Actor.PlayerID != "" {
			if prev, ok := ids[am.Actor.PlayerID]; (ok && prev != bm.Actor.PlayerID) || !projections.ImportedPlayer(bm.Actor.PlayerID) {
				t.Fatalf("imported event %d: player %s became %s", a.Version, am.Actor.PlayerID, bm.Actor.PlayerID)
			}
			ids[am.Actor.PlayerID] = bm.Actor.PlayerID
			am.Actor.PlayerID, bm.Actor.PlayerID = "", ""
		}
		if a.Type != b.Type || a.Schema != b.Schema || !sameData || mustJSON(t, am) != mustJSON(t, bm) {
			t.Fatalf("imported event %d differs:\n%+v\n%+v", a.Version, a, b)
		}
	}
	if v, err := r.e.svc.Verify(ctx, imported.ID); err != nil || v.Result != play.VerifyPass {
		t.Fatalf("the imported game does not verify: %v %+v", err, v)
	}
}

// comparableView is the state JSON without what an import changes (the
// id, the times, the version its game.imported adds, the rating, and
// who holds the seats).
func comparableView(t *testing.T, g *play.Game) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(viewJSON(t, g)), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "created_at", "updated_at", "deadline", "version", "imported", "rated",
		// An import's seats belong to nobody (TestImportSeatsNobody), and
		// so it is public.
		"seats", "created_by", "visibility"} {
		delete(m, k)
	}
	if players, ok := m["players"].([]any); ok {
		for _, p := range players {
			delete(p.(map[string]any), "name")
		}
	}
	return mustJSON(t, m)
}
