package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/azuld/azuld/play"
)

// racers is how many copies of one command are sent at once.
const racers = 16

// race sends the same request from racers goroutines at once, released
// together, and returns every response.
func race(t *testing.T, c *client, method, path string, body any, headers ...header) []response {
	t.Helper()
	out := make([]response, racers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = c.callAsync(method, path, body, headers...)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// callAsync is call for goroutines other than the test's own: it reports
// a failed request as a status 0 response instead of stopping the test.
func (c *client) callAsync(method, path string, body any, headers ...header) response {
	sub := &client{t: asyncT{c.t}, env: c.env, token: c.token, Player: c.Player}
	defer func() {
		if r := recover(); r != nil {
			c.t.Errorf("%s %s: %v", method, path, r)
		}
	}()
	return sub.call(method, path, body, headers...)
}

// asyncT turns Fatal into a panic that callAsync recovers: t.Fatal must
// only be called from the test's goroutine.
type asyncT struct{ testing.TB }

func (a asyncT) Fatal(args ...any)                 { panic(args) }
func (a asyncT) Fatalf(format string, args ...any) { a.TB.Errorf(format, args...); panic(format) }

// TestConcurrentDuplicateMoves: copies of one keyed move sent at the same
// moment all get the first result (201, the same version and events) and
// the move is appended once, with or without If-Match.
func TestConcurrentDuplicateMoves(t *testing.T) {
	t.Parallel()
	for _, withIfMatch := range []bool{false, true} {
		t.Run("if-match="+strconv.FormatBool(withIfMatch), func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t)
			ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
			g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}})
			var cur game
			ben.call(http.MethodPost, "/v1/games/"+g.ID+"/join", nil).mustStatus(t, http.StatusOK).decode(t, &cur)
			mover := ana
			if cur.ToAct[0] == 1 {
				mover = ben
			}
			move := mover.getGame(g.ID).LegalMoves[0]
			headers := []header{{"Idempotency-Key", "same-move"}}
			if withIfMatch {
				headers = append(headers, header{"If-Match", strconv.Quote(strconv.FormatInt(cur.Version, 10))})
			}

			resps := race(t, mover, http.MethodPost, "/v1/games/"+g.ID+"/moves", move.Move, headers...)

			var first moveResponse
			firstBody := ""
			replayed := 0
			for i, res := range resps {
				if res.Status != http.StatusCreated {
					t.Errorf("copy %d: status %d: %s", i, res.Status, res.Body)
					continue
				}
				var mr moveResponse
				res.decode(t, &mr)
				if res.Header.Get("Idempotent-Replayed") == "true" {
					replayed++
				}
				events, err := json.Marshal(mr.Events)
				if err != nil {
					t.Fatal(err)
				}
				if firstBody == "" {
					first, firstBody = mr, string(events)
					continue
				}
				if mr.Version != first.Version || string(events) != firstBody {
					t.Errorf("copy %d answered version %d with events %s; another answered version %d with %s",
						i, mr.Version, events, first.Version, firstBody)
				}
			}
			if t.Failed() {
				return
			}
			// A copy sent later, when the game is past its If-Match
			// version, gets the first result too.
			var late moveResponse
			mover.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", move.Move, headers...).mustStatus(t, http.StatusCreated).decode(t, &late)
			if late.Version != first.Version || len(late.Events) != len(first.Events) || !late.Replayed {
				t.Errorf("late copy answered %+v, want version %d replayed", late, first.Version)
			}
			if first.Version != cur.Version+int64(len(first.Events)) || len(first.Events) == 0 {
				t.Errorf("result version %d with %d events, game was at %d", first.Version, len(first.Events), cur.Version)
			}
			if replayed != racers-1 {
				t.Errorf("%d answers marked replayed, want %d", replayed, racers-1)
			}
			// The log holds the move once: the game stands at the
			// version of the first result.
			var appended int
			err := env.pool.QueryRow(context.Background(),
				// The meta is on an append's first event only: count the
				// events of the appends that carry the key.
				`SELECT count(*) FROM events WHERE stream_id = $1 AND tx_id IN (
					SELECT tx_id FROM events WHERE stream_id = $1 AND meta::jsonb->>'command_id' = 'same-move')`, g.ID).Scan(&appended)
			if err != nil {
				t.Fatal(err)
			}
			if appended != len(first.Events) {
				t.Errorf("%d events carry the key, want the %d of one move", appended, len(first.Events))
			}
			if v := ana.getGame(g.ID).Version; v != first.Version {
				t.Errorf("game at version %d after the race, want %d", v, first.Version)
			}
		})
	}
}

// TestConcurrentDuplicateCreate: copies of one keyed game creation sent at
// the same moment create one game and all answer with it.
func TestConcurrentDuplicateCreate(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	req := play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}}
	resps := race(t, ana, http.MethodPost, "/v1/games", req, header{"Idempotency-Key", "same-game"})
	ids := map[string]int{}
	for i, res := range resps {
		if res.Status != http.StatusCreated {
			t.Errorf("copy %d: status %d: %s", i, res.Status, res.Body)
			continue
		}
		var g game
		res.decode(t, &g)
		if g.ID == "" || g.Version != 1 || g.Status != play.StatusOpen {
			t.Errorf("copy %d answered %+v", i, g)
		}
		if res.Header.Get("Location") != "/v1/games/"+g.ID {
			t.Errorf("copy %d: Location %q for game %s", i, res.Header.Get("Location"), g.ID)
		}
		ids[g.ID]++
	}
	if len(ids) != 1 {
		t.Errorf("the copies answered with %d games: %v", len(ids), ids)
	}
	var streams, games int
	err := env.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM streams), (SELECT count(*) FROM games)`).Scan(&streams, &games)
	if err != nil {
		t.Fatal(err)
	}
	if streams != 1 || games != 1 {
		t.Errorf("%d streams and %d games after the race, want one", streams, games)
	}
}
