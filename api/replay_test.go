package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// eventsPage is a page of the audit trail as the tests read it (the
// descriptions and undone marks are read where tested).
type eventsPage struct {
	GameID string          `json:"game_id"`
	Events []events.Record `json:"events"`
	Next   string          `json:"next,omitempty"`
}

// takebackReply is the body of the take-back endpoints.
type takebackReply struct {
	Takeback play.Takeback   `json:"takeback"`
	Version  int64           `json:"version"`
	Events   []events.Record `json:"events"`
	Game     struct {
		Version         int64          `json:"version"`
		ToAct           []int          `json:"to_act"`
		PendingTakeback *play.Takeback `json:"pending_takeback"`
	} `json:"game"`
}

// auditEvent is an event of the audit trail as the tests read it.
type auditEvent struct {
	events.Record
	Description string `json:"description"`
	Undone      bool   `json:"undone"`
	UndoneBy    int64  `json:"undone_by"`
}

// tableOf is the part of a state JSON a take-back restores.
func tableOf(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal([]any{m["factories"], m["center"], m["players"], m["to_act"], m["bag"], m["discard"]})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// firstMove plays the first legal move of the client's seat.
func (c *client) firstMove(id string) {
	c.t.Helper()
	g := c.getGame(id)
	if len(g.LegalMoves) == 0 {
		c.t.Fatalf("%s has no legal move at version %d", c.Player.Name, g.Version)
	}
	c.call(http.MethodPost, "/v1/games/"+id+"/moves", map[string]any{"move": g.LegalMoves[0].Move}).mustStatus(c.t, http.StatusCreated)
}

func TestTakebacksOverHTTP(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, cy := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy")
	anon := env.anonymous(t)
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Takebacks: ptr(true), Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	base := "/v1/games/" + g.ID
	if len(g.ToAct) != 1 || g.ToAct[0] != 0 {
		t.Fatalf("seat 0 starts: %v", g.ToAct)
	}

	// Nothing to take back yet; strangers and anonymous callers may not ask.
	if p := ana.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusUnprocessableEntity).problem(t); p.Type != ProblemNothingToTakeBack {
		t.Errorf("take-back before any move: %+v", p)
	}
	before := anon.call(http.MethodGet, base+"/state", nil).mustStatus(t, http.StatusOK).Body
	ana.firstMove(g.ID)
	moved := anon.call(http.MethodGet, base+"/state", nil).mustStatus(t, http.StatusOK)
	var movedVersion struct {
		Version int64 `json:"version"`
	}
	moved.decode(t, &movedVersion)
	ben.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusUnprocessableEntity).problem(t)
	cy.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusForbidden).problem(t)
	anon.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	for _, body := range []any{map[string]any{"moves": -1}, map[string]any{"moves": 99}, map[string]any{"moves": "one"}, map[string]any{"mvoes": 1}, []byte(`{"moves":`), map[string]any{"seat": 1}} {
		res := ana.call(http.MethodPost, base+"/takebacks", body)
		if res.Status != http.StatusBadRequest && res.Status != http.StatusForbidden {
			t.Errorf("body %v: status %d", body, res.Status)
		}
		res.problem(t)
	}

	// Ana asks; Ben must consent.
	var tb takebackReply
	res := ana.call(http.MethodPost, base+"/takebacks", map[string]any{"moves": 1}).mustStatus(t, http.StatusCreated)
	res.decode(t, fresh(&tb))
	if tb.Takeback.Status != play.TakebackPending || len(tb.Takeback.Needs) != 1 || tb.Takeback.Needs[0] != 1 || tb.Game.PendingTakeback == nil {
		t.Fatalf("request: %+v", tb)
	}
	tid := strconv.FormatInt(tb.Takeback.ID, 10)
	if res.Header.Get("Location") != base+"/takebacks/"+tid {
		t.Errorf("Location %q", res.Header.Get("Location"))
	}
	if p := ana.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusConflict).problem(t); p.Type != ProblemTakebackConflict {
		t.Errorf("a second request: %+v", p)
	}
	ana.call(http.MethodPost, base+"/takebacks/"+tid+"/accept", nil).mustStatus(t, http.StatusForbidden).problem(t)
	cy.call(http.MethodPost, base+"/takebacks/"+tid+"/accept", nil).mustStatus(t, http.StatusForbidden).problem(t)
	cy.call(http.MethodPost, base+"/takebacks/"+tid+"/decline", nil).mustStatus(t, http.StatusForbidden).problem(t)
	for _, bad := range []string{"999", "abc", "0", "1", "-2"} {
		ben.call(http.MethodPost, base+"/takebacks/"+bad+"/accept", nil).mustStatus(t, http.StatusNotFound).problem(t)
	}
	ben.call(http.MethodPost, base+"/takebacks/"+tid+"/accept", nil).mustStatus(t, http.StatusOK).decode(t, fresh(&tb))
	if tb.Takeback.Status != play.TakebackTakenBack || tb.Game.PendingTakeback != nil || len(tb.Game.ToAct) != 1 || tb.Game.ToAct[0] != 0 {
		t.Fatalf("after consent: %+v", tb)
	}
	if p := ben.call(http.MethodPost, base+"/takebacks/"+tid+"/accept", nil).mustStatus(t, http.StatusConflict).problem(t); p.Type != ProblemTakebackConflict {
		t.Errorf("consent to a done take-back: %+v", p)
	}
	after := anon.call(http.MethodGet, base+"/state", nil).mustStatus(t, http.StatusOK).Body
	if tableOf(t, after) != tableOf(t, before) {
		t.Fatalf("the take-back did not restore the table:\n%s\n%s", tableOf(t, after), tableOf(t, before))
	}
	// The turn went back to Ana, like any turn change.
	inboxOf := func(c *client) int {
		var turns struct {
			Turns []struct {
				GameID string `json:"game_id"`
			} `json:"turns"`
		}
		c.call(http.MethodGet, "/v1/me/turns", nil).mustStatus(t, http.StatusOK).decode(t, &turns)
		return len(turns.Turns)
	}
	if inboxOf(ana) != 1 || inboxOf(ben) != 0 {
		t.Fatalf("turn inboxes after the take-back: Ana %d, Ben %d", inboxOf(ana), inboxOf(ben))
	}
	// The undone branch still replays.
	branch := anon.call(http.MethodGet, base+"/state?version="+strconv.FormatInt(movedVersion.Version, 10), nil).mustStatus(t, http.StatusOK).Body
	if tableOf(t, branch) != tableOf(t, moved.Body) {
		t.Fatal("the state inside the undone branch is not the branch's")
	}
	var mark struct {
		Undone   bool  `json:"undone"`
		UndoneBy int64 `json:"undone_by"`
	}
	if json.Unmarshal(branch, &mark); !mark.Undone || mark.UndoneBy != tb.Takeback.TakenBackAt {
		t.Fatalf("the branch's state is not marked undone by %d: %+v", tb.Takeback.TakenBackAt, mark)
	}
	var standing struct {
		Undone *bool `json:"undone"`
	}
	if json.Unmarshal(anon.call(http.MethodGet, base+"/state?version=3", nil).mustStatus(t, http.StatusOK).Body, &standing); standing.Undone != nil {
		t.Fatal("a standing version is marked undone")
	}

	// The audit trail marks the undone move and names the players.
	var page struct {
		Events []auditEvent `json:"events"`
	}
	anon.call(http.MethodGet, base+"/events", nil).mustStatus(t, http.StatusOK).decode(t, &page)
	var undone, takenBack int
	for _, e := range page.Events {
		if e.Undone {
			undone++
			if e.UndoneBy <= e.Version || e.Meta.Channel != "api" || e.Meta.Notation == "" {
				t.Errorf("undone event %+v", e)
			}
		}
		if e.Type == play.EvTakenBack {
			takenBack = int(e.Version)
		}
		if e.Description == "" {
			t.Errorf("version %d has no description", e.Version)
		}
		if e.Type == "tiles_taken" && !strings.HasPrefix(e.Description, "Ana ") {
			t.Errorf("description %q does not name Ana", e.Description)
		}
	}
	if undone == 0 || takenBack == 0 {
		t.Fatalf("%d undone events, taken back at %d", undone, takenBack)
	}
	var filtered struct {
		Events []auditEvent `json:"events"`
	}
	anon.call(http.MethodGet, base+"/events?type=game.takeback_requested,game.takeback_accepted&type=game.taken_back", nil).mustStatus(t, http.StatusOK).decode(t, &filtered)
	if len(filtered.Events) != 3 {
		t.Fatalf("filtered by type: %d events", len(filtered.Events))
	}
	anon.call(http.MethodGet, base+"/events?seat=1", nil).mustStatus(t, http.StatusOK).decode(t, &filtered)
	for _, e := range filtered.Events {
		if e.Meta.Actor.Seat == nil || *e.Meta.Actor.Seat != 1 {
			t.Fatalf("filtered by seat 1: %+v", e)
		}
	}
	lines := anon.call(http.MethodGet, base+"/events?format=jsonl", nil).mustStatus(t, http.StatusOK)
	if ct := lines.Header.Get("Content-Type"); ct != MIMEJSONLines {
		t.Errorf("JSON lines served as %q", ct)
	}
	if n := strings.Count(string(lines.Body), "\n"); n != len(page.Events) {
		t.Errorf("%d JSON lines for %d events", n, len(page.Events))
	}
	anon.call(http.MethodGet, base+"/events?format=xml", nil).mustStatus(t, http.StatusBadRequest).problem(t)
	anon.call(http.MethodGet, base+"/events?seat=x", nil).mustStatus(t, http.StatusBadRequest).problem(t)

	// A declined request changes nothing but the log; a move voids a
	// pending one.
	ana.firstMove(g.ID)
	ana.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusCreated).decode(t, fresh(&tb))
	tid = strconv.FormatInt(tb.Takeback.ID, 10)
	ben.call(http.MethodPost, base+"/takebacks/"+tid+"/decline", nil).mustStatus(t, http.StatusOK).decode(t, fresh(&tb))
	if tb.Takeback.Status != play.TakebackDeclined || tb.Takeback.DeclinedBy == nil || *tb.Takeback.DeclinedBy != 1 {
		t.Fatalf("declined: %+v", tb.Takeback)
	}
	ana.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusCreated).decode(t, fresh(&tb))
	tid = strconv.FormatInt(tb.Takeback.ID, 10)
	ben.firstMove(g.ID)
	var listed struct {
		Takebacks []play.Takeback `json:"takebacks"`
	}
	anon.call(http.MethodGet, base+"/takebacks", nil).mustStatus(t, http.StatusOK).decode(t, &listed)
	var statuses []string
	for _, l := range listed.Takebacks {
		statuses = append(statuses, l.Status)
	}
	if got := strings.Join(statuses, ","); got != "taken_back,declined,lapsed" {
		t.Fatalf("take-backs listed as %s", got)
	}
	var one play.Takeback
	anon.call(http.MethodGet, base+"/takebacks/"+tid, nil).mustStatus(t, http.StatusOK).decode(t, &one)
	if strconv.FormatInt(one.ID, 10) != tid || one.Status != play.TakebackLapsed {
		t.Fatalf("take-back %s: %+v", tid, one)
	}
	anon.call(http.MethodGet, base+"/takebacks/2", nil).mustStatus(t, http.StatusNotFound).problem(t)
	anon.call(http.MethodGet, base+"/takebacks/x", nil).mustStatus(t, http.StatusNotFound).problem(t)
	if p := ben.call(http.MethodPost, base+"/takebacks/"+tid+"/accept", nil).mustStatus(t, http.StatusConflict).problem(t); !strings.Contains(p.Detail, "lapsed") {
		t.Errorf("accepting a lapsed take-back: %+v", p)
	}

	// Diff and rounds.
	var d play.Diff
	anon.call(http.MethodGet, base+"/diff?from=4&to="+strconv.FormatInt(movedVersion.Version, 10), nil).mustStatus(t, http.StatusOK).decode(t, &d)
	if len(d.Changes) == 0 || len(d.Events) == 0 || len(d.ToActFrom) != 1 || len(d.ToActTo) != 1 || d.ToActFrom[0] == d.ToActTo[0] {
		t.Fatalf("diff: %+v", d)
	}
	anon.call(http.MethodGet, base+"/diff?from=3", nil).mustStatus(t, http.StatusBadRequest).problem(t)
	anon.call(http.MethodGet, base+"/diff?from=5&to=3", nil).mustStatus(t, http.StatusBadRequest).problem(t)
	anon.call(http.MethodGet, base+"/diff?from=1&to=9999", nil).mustStatus(t, http.StatusBadRequest).problem(t)
	var rounds struct {
		Rounds []play.RoundSummary `json:"rounds"`
	}
	anon.call(http.MethodGet, base+"/rounds", nil).mustStatus(t, http.StatusOK).decode(t, &rounds)
	if len(rounds.Rounds) != 1 || rounds.Rounds[0].Round != 1 || rounds.Rounds[0].Moves != 2 || rounds.Rounds[0].TakenBack != 1 {
		t.Fatalf("rounds: %+v", rounds.Rounds)
	}
	// Azul scores start at 0 and change only when tiling, after the round.
	for seat, gained := range rounds.Rounds[0].Gained {
		if gained != 0 || rounds.Rounds[0].Scores[seat] != 0 {
			t.Fatalf("round 1 before tiling: %+v", rounds.Rounds[0])
		}
	}

	// Verify: the commitment only while the seed is secret; the whole
	// check once the game is over.
	var v play.Verification
	anon.call(http.MethodGet, base+"/verify", nil).mustStatus(t, http.StatusOK).decode(t, &v)
	if v.Result != play.VerifyCommitted || v.Seed != "" || v.SeedCommitment != g.SeedCommitment {
		t.Fatalf("verify while running: %+v", v)
	}
	ana.call(http.MethodPost, base+"/moves", map[string]string{"type": "resign"}).mustStatus(t, http.StatusCreated)
	anon.call(http.MethodGet, base+"/verify", nil).mustStatus(t, http.StatusOK).decode(t, &v)
	if v.Result != play.VerifyPass || v.Seed == "" || v.Commands < 4 {
		t.Fatalf("verify after the end: %+v %+v", v, v.Mismatch)
	}
	if p := ana.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusConflict).problem(t); p.Type != ProblemGameOver {
		t.Errorf("take-back after the end: %+v", p)
	}

	// Export, import, and the import's refusals.
	export := anon.call(http.MethodGet, base+"/export", nil).mustStatus(t, http.StatusOK)
	if export.Header.Get("Content-Type") != MIMEJSONLines {
		t.Errorf("export served as %q", export.Header.Get("Content-Type"))
	}
	ndjson := header{"Content-Type", MIMEJSONLines}
	var imported game
	cy.call(http.MethodPost, "/v1/games/import", export.Body, ndjson).mustStatus(t, http.StatusCreated).decode(t, &imported)
	if imported.ID == g.ID || imported.Status != play.StatusFinished || !imported.Imported || imported.Rated {
		t.Fatalf("imported: %+v", imported)
	}
	anon.call(http.MethodGet, "/v1/games/"+imported.ID+"/verify", nil).mustStatus(t, http.StatusOK).decode(t, &v)
	if v.Result != play.VerifyPass {
		t.Fatalf("verify of the import: %+v", v)
	}
	var copied struct {
		Events []auditEvent `json:"events"`
	}
	anon.call(http.MethodGet, "/v1/games/"+imported.ID+"/events", nil).mustStatus(t, http.StatusOK).decode(t, &copied)
	anon.call(http.MethodGet, base+"/events", nil).mustStatus(t, http.StatusOK).decode(t, &page)
	// The import's log ends with game.imported, which makes it unrated.
	if len(copied.Events) != len(page.Events)+1 || copied.Events[len(page.Events)].Type != "game.imported" || copied.Events[len(page.Events)].Description == "" {
		t.Fatalf("imported %d events of %d", len(copied.Events), len(page.Events))
	}
	// The game's own events are copied as they are; the server's name
	// the players by the opaque ids the import gave them, and the
	// descriptions name the seats (TestImportNamesNobodyHere).
	for i := range page.Events {
		a, b := page.Events[i], copied.Events[i]
		if a.Type != b.Type || (!strings.Contains(a.Type, ".") && string(a.Data) != string(b.Data)) || b.Description == "" || a.Undone != b.Undone {
			t.Fatalf("imported event %d differs:\n%+v\n%+v", a.Version, a, b)
		}
	}
	tampered := strings.Replace(string(export.Body), `"seed":"`, `"seed":"0`, 1)
	for _, body := range [][]byte{[]byte(tampered), []byte("not json\n"), []byte(""), []byte(`{"version":2,"type":"x","schema":1,"data":{}}`)} {
		if p := cy.call(http.MethodPost, "/v1/games/import", body, ndjson).mustStatus(t, http.StatusUnprocessableEntity).problem(t); p.Type != ProblemBadLog {
			t.Errorf("import of %.40q: %+v", body, p)
		}
	}
	anon.call(http.MethodPost, "/v1/games/import", export.Body, ndjson).mustStatus(t, http.StatusUnauthorized).problem(t)
}

func TestSoloTakebackAgainstABotNeedsNoConsent(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion", Takebacks: ptr(true), Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}})
	base := "/v1/games/" + g.ID
	before := env.anonymous(t).call(http.MethodGet, base+"/state", nil).mustStatus(t, http.StatusOK).Body
	ana.firstMove(g.ID) // the bot answers at once
	var tb takebackReply
	ana.call(http.MethodPost, base+"/takebacks", nil).mustStatus(t, http.StatusCreated).decode(t, fresh(&tb))
	if tb.Takeback.Status != play.TakebackTakenBack || len(tb.Takeback.Needs) != 0 || len(tb.Takeback.Undo) < 2 {
		t.Fatalf("solo take-back: %+v", tb.Takeback)
	}
	after := env.anonymous(t).call(http.MethodGet, base+"/state", nil).mustStatus(t, http.StatusOK).Body
	if tableOf(t, after) != tableOf(t, before) {
		t.Fatal("the solo take-back did not restore the table")
	}
}

// fresh zeroes a reply before it is decoded into again (absent fields
// would keep their old values).
func fresh(r *takebackReply) *takebackReply {
	*r = takebackReply{}
	return r
}
