package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// gameConfig is one rule set, variant and player count.
type gameConfig struct {
	ruleset string
	options engine.Options
	players int
}

func (c gameConfig) String() string {
	variant := c.options.Wall + c.options.Board
	return fmt.Sprintf("%s/%s/%dp", c.ruleset, variant, c.players)
}

// everyConfig is every rule set × variant × 2, 3 and 4 players.
func everyConfig() []gameConfig {
	var out []gameConfig
	variants := []struct {
		ruleset string
		options []engine.Options
	}{
		{"azul-mini", []engine.Options{{Wall: "coloured"}, {Wall: "grey"}}},
		{"summer-pavilion", []engine.Options{{Board: "coloured"}, {Board: "monochrome"}}},
		{"summer-pavilion-mini", []engine.Options{{Board: "coloured"}, {Board: "monochrome"}}},
	}
	for _, v := range variants {
		for _, o := range v.options {
			for players := 2; players <= 4; players++ {
				out = append(out, gameConfig{ruleset: v.ruleset, options: o, players: players})
			}
		}
	}
	return out
}

// maxMovesPerGame stops a game that does not end (a bug).
const maxMovesPerGame = 2000

var long = flag.Bool("long", false, "TestCompleteGames: play every configuration both ways, also under -race")

// TestCompleteGames plays whole games through HTTP for every rule set,
// variant and player count, each move chosen at random among the ones
// legal-moves lists, and checks the end: finished with a final breakdown,
// the seed revealed and matching its commitment, the event log folding to
// the same final state, and the state at every past version equal to the
// state seen live at that version.
//
// Each configuration is played twice: by humans only, and with a random
// bot in the last seat, which answers inside the move requests of the
// humans. Under the race detector (CI's run) the short form plays each
// configuration once, the two ways taking turns, so that every rule set
// and board is played both ways and so is every player count of each
// rule set; -long plays the whole form there too.
func TestCompleteGames(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	players := []*client{env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy"), env.register(t, "Di")}
	for i, cfg := range everyConfig() {
		for _, withBot := range []bool{false, true} {
			if raceDetector && !*long && withBot != (i%2 == 1) {
				continue
			}
			name := cfg.String() + "/humans"
			if withBot {
				name = cfg.String() + "/bot"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				salt := uint64(2 * i)
				if withBot {
					salt++
				}
				playGame(t, env, players, cfg, withBot, salt)
			})
		}
	}
}

func playGame(t *testing.T, env *testEnv, players []*client, cfg gameConfig, withBot bool, salt uint64) {
	rng := rand.New(rand.NewPCG(salt, 0x5eed))
	seats := make([]play.SeatSpec, cfg.players)
	owner := map[int]*client{}
	for i := range seats {
		seats[i] = play.SeatSpec{Player: players[i].Player.ID}
		owner[i] = players[i]
	}
	if withBot {
		last := cfg.players - 1
		seats[last] = play.SeatSpec{Bot: "random"}
		delete(owner, last)
	}
	g := players[0].createGame(play.CreateGame{Ruleset: cfg.ruleset, Options: cfg.options, Seats: seats})
	if g.Status != play.StatusActive {
		t.Fatalf("game not started: %+v", g)
	}
	base := "/v1/games/" + g.ID
	anon := env.anonymous(t)

	// live keeps the state JSON seen at each version.
	live := map[int64]map[string]any{}
	var final game
	for moves := 0; ; moves++ {
		if moves > maxMovesPerGame {
			t.Fatalf("no end after %d moves", moves)
		}
		res := anon.call(http.MethodGet, base, nil).mustStatus(t, http.StatusOK)
		var cur game
		res.decode(t, &cur)
		live[cur.Version] = stateJSON(t, res.Body)
		if cur.Status == play.StatusFinished {
			final = cur
			break
		}
		seat := cur.ToAct[rng.IntN(len(cur.ToAct))]
		c := owner[seat]
		if c == nil {
			t.Fatalf("version %d: bot seat %d left to act", cur.Version, seat)
		}
		var lm legalMovesResponse
		c.call(http.MethodGet, base+"/legal-moves", nil).mustStatus(t, http.StatusOK).decode(t, &lm)
		if lm.Version != cur.Version || len(lm.Moves) == 0 {
			t.Fatalf("version %d: legal-moves at %d lists %d moves for seat %d", cur.Version, lm.Version, len(lm.Moves), seat)
		}
		// Resigning would end the game early: this test plays games out.
		playable := slices.DeleteFunc(slices.Clone(lm.Moves), func(m LegalMove) bool { return m.Notation == "resign" })
		if len(playable) == 0 {
			t.Fatalf("version %d: seat %d may only resign", cur.Version, seat)
		}
		m := playable[rng.IntN(len(playable))]
		// Alternate the accepted forms of a move.
		var body any = m.Move
		if moves%3 == 1 {
			body = m.Notation
		}
		res = c.call(http.MethodPost, base+"/moves", body, header{"If-Match", strconv.FormatInt(cur.Version, 10)})
		if res.Status != http.StatusCreated {
			t.Fatalf("version %d, seat %d, move %s: %d %s", cur.Version, seat, m.Notation, res.Status, res.Body)
		}
	}

	// The end: finished, ranked, explained, seed revealed.
	if final.Final == nil || len(final.Final.Players) != cfg.players || len(final.Final.Winners) == 0 {
		t.Fatalf("final breakdown missing: %+v", final.Final)
	}
	for _, p := range final.Final.Players {
		if p.Rank < 1 || p.Rank > cfg.players {
			t.Errorf("seat %d rank %d", p.Seat, p.Rank)
		}
		// Every seat has its breakdown (a list, never null). Azul's always
		// explains the points of play; Summer Pavilion's lists only the
		// end bonuses earned and tiles kept, and a random game may have
		// neither.
		if p.Breakdown == nil || (cfg.ruleset == "azul-mini" && len(p.Breakdown) == 0) {
			t.Errorf("seat %d: no score breakdown: %+v", p.Seat, p.Breakdown)
		}
	}
	sum := sha256.Sum256(mustHexSeed(t, final.Seed))
	if hex.EncodeToString(sum[:]) != final.SeedCommitment {
		t.Errorf("revealed seed %q does not match the commitment %s", final.Seed, final.SeedCommitment)
	}

	// The event log folds to the same final state.
	recs := allEvents(t, anon, g.ID)
	if int64(len(recs)) != final.Version {
		t.Fatalf("%d events, version %d", len(recs), final.Version)
	}
	checkFold(t, env.rules[cfg.ruleset], recs, live[final.Version])

	// The state at every version seen live is the same when replayed.
	for v, want := range live {
		res := anon.call(http.MethodGet, fmt.Sprintf("%s/state?version=%d", base, v), nil).mustStatus(t, http.StatusOK)
		if got := stateJSON(t, res.Body); !reflect.DeepEqual(got, want) {
			t.Fatalf("state at version %d differs from the live one:\n got %s\nwant %s", v, mustJSON(got), mustJSON(want))
		}
	}
	if len(live) < 10 {
		t.Errorf("only %d versions seen: the game was too short to mean much", len(live))
	}
}

// stateJSON is a game's state JSON without the caller-specific fields.
func stateJSON(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "your_seats")
	delete(m, "legal_moves")
	return m
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func mustHexSeed(t *testing.T, seed string) []byte {
	t.Helper()
	b, err := hex.DecodeString(seed)
	if err != nil || len(b) != 32 {
		t.Fatalf("seed %q is not 64 hex digits", seed)
	}
	return b
}

// allEvents reads a game's whole log through the paginated endpoint.
func allEvents(t *testing.T, c *client, id string) []events.Record {
	t.Helper()
	var out []events.Record
	path := "/v1/games/" + id + "/events?limit=1000"
	for path != "" {
		var page eventsPage
		c.call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK).decode(t, &page)
		out = append(out, page.Events...)
		path = page.Next
	}
	return out
}

// checkFold folds the engine events of a log and compares the result with
// the engine's part of a state JSON.
func checkFold(t *testing.T, rules engine.Rules, recs []events.Record, state map[string]any) {
	t.Helper()
	var evs []engine.Event
	for _, r := range recs {
		if strings.Contains(r.Type, ".") {
			continue // server events: creation, joins, seed reveal
		}
		e, err := rules.DecodeEvent(r.Type, r.Schema, r.Data)
		if err != nil {
			t.Fatalf("event %d (%s): %v", r.Version, r.Type, err)
		}
		evs = append(evs, e)
	}
	folded, err := engine.Fold(rules, nil, evs)
	if err != nil {
		t.Fatalf("fold: %v", err)
	}
	var fromAPI engine.View
	if err := json.Unmarshal([]byte(mustJSON(state)), &fromAPI); err != nil {
		t.Fatal(err)
	}
	for i := range fromAPI.Players {
		fromAPI.Players[i].Name = "" // names come from the server's seats
	}
	if got, want := normalJSON(t, folded.View()), normalJSON(t, fromAPI); got != want {
		t.Fatalf("the event log folds to another state:\n folded %s\n    api %s", got, want)
	}
}

// normalJSON writes v as JSON with object keys sorted, so structs and maps
// compare equal.
func normalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	return mustJSON(generic)
}

// TestConcurrentMovesOneWins: two identical moves with the same If-Match
// race; exactly one is appended.
func TestConcurrentMovesOneWins(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: "me"}}})
	m := g.LegalMoves[0]
	body, _ := json.Marshal(m)
	statuses := make([]int, 6)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			res := ana.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", body, header{"If-Match", strconv.FormatInt(g.Version, 10)})
			statuses[i] = res.Status
		})
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Errorf("status %d", s)
		}
	}
	if created != 1 {
		t.Errorf("%d of the racing moves were appended (statuses %v)", created, statuses)
	}
}
