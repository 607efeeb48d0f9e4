package loadgen_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/loadgen"
)

// fakeAzuld answers the few routes the load tool uses, for one game at a
// time per player pair, and refuses or drops moves on demand.
type fakeAzuld struct {
	mu sync.Mutex
	// refuse answers every move with 422; flaky answers the first
	// attempt of each Idempotency-Key with 503.
	refuse, flaky bool
	players       int
	version       map[string]int64
	attempts      map[string][]string // key -> If-Match of each attempt
}

func newFake() *fakeAzuld {
	return &fakeAzuld{version: map[string]int64{}, attempts: map[string][]string{}}
}

func (f *fakeAzuld) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/players":
		f.players++
		_ = json.NewEncoder(w).Encode(map[string]string{"id": "p" + strconv.Itoa(f.players), "token": "t" + strconv.Itoa(f.players)})
	case r.Method == http.MethodPost && path == "/v1/games":
		id := "g" + time.Now().Format("150405.000000000")
		f.version[id] = 1
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]string{"id": id})
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/legal-moves"):
		id := strings.Split(path, "/")[3]
		_ = json.NewEncoder(w).Encode(map[string]any{
			"version": f.version[id], "to_act": []int{0}, "seats": []int{0},
			"moves": []map[string]any{{"seat": 0, "move": map[string]int{"x": 1}}},
		})
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/moves"):
		id := strings.Split(path, "/")[3]
		key := r.Header.Get("Idempotency-Key")
		f.attempts[key] = append(f.attempts[key], r.Header.Get("If-Match"))
		switch {
		case f.refuse:
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"type":"illegal-move"}`))
			return
		case f.flaky && len(f.attempts[key]) == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		f.version[id]++
		status := "active"
		if f.version[id] > 5 {
			status = "finished"
		}
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"version": f.version[id], "status": status, "to_act": []int{0}})
	default:
		http.NotFound(w, r)
	}
}

// A move answered 503 is sent again with the same Idempotency-Key and
// If-Match, and counts once.
func TestRetriesKeepTheKey(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.flaky = true
	hs := httptest.NewServer(f)
	defer hs.Close()
	sum, err := loadgen.Run(context.Background(), loadgen.Config{URL: hs.URL, Clients: 1, Moves: 12, Players: 1, BotSeat: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Moves != 12 || sum.ErrorCount != 0 || sum.Retries != 12 || sum.GamesFinished < 2 {
		t.Fatalf("summary %+v: want 12 moves, each retried once, and no error", sum)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.attempts) != 12 {
		t.Errorf("%d keys for 12 moves", len(f.attempts))
	}
	for key, ifMatch := range f.attempts {
		if key == "" || len(ifMatch) != 2 || ifMatch[0] != ifMatch[1] || ifMatch[0] == "" {
			t.Errorf("key %q was sent with If-Match %q", key, ifMatch)
		}
	}
}

// A server that refuses every move ends a run that has no duration,
// with an error, instead of keeping it going for ever.
func TestRefusedMovesEndTheRun(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.refuse = true
	hs := httptest.NewServer(f)
	defer hs.Close()
	sum, err := loadgen.Run(context.Background(), loadgen.Config{URL: hs.URL, Clients: 2, Moves: 5, Players: 1, BotSeat: "random"})
	if err == nil || !strings.Contains(err.Error(), "in a row") {
		t.Fatalf("a run whose every move is refused: %v", err)
	}
	if sum.Moves != 0 || sum.Errors["422"] != 20 {
		t.Errorf("summary %+v: want no move and 10 refusals per client", sum)
	}
}
