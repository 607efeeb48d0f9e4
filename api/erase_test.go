package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/mail"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// The player whose account is deleted: a name and an address found
// nowhere else, with a quote and an accent so that escaped forms count.
const (
	erasedName     = "Zéphyrine \"Quill\" Featherstonehaugh"
	erasedFragment = "Featherstonehaugh"
	erasedEmail    = "zephyrine.quill.erase@example.org"
	erasedLocal    = "zephyrine.quill.erase"
	erasedHook     = "https://hooks.example.net/featherstonehaugh-hook"
)

// registerAs creates a player with a given name and address.
func (env *testEnv) registerAs(t *testing.T, name, email string) *client {
	t.Helper()
	res := env.anonymous(t).call(http.MethodPost, "/v1/players", map[string]string{"name": name, "email": email})
	res.mustStatus(t, http.StatusCreated)
	var reg struct {
		play.Player
		Token string `json:"token"`
	}
	res.decode(t, &reg)
	c := &client{t: t, env: env, token: reg.Token, Player: reg.Player}
	env.clients.Store(reg.Player.ID, c)
	return c
}

// pgDump dumps a whole database (schema and data) with pg_dump, the
// newest installed one that can dump the server. Where none can (a
// container's server newer than the local binaries), every table of every
// schema is copied out instead, which is the data pg_dump would write.
func pgDump(t *testing.T, ownerURL string) string {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var serverNum int
	if err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&serverNum); err != nil {
		t.Fatal(err)
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	best, bestMajor := "", 0
	for _, f := range found {
		major, err := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(f))))
		if err == nil && major >= serverNum/10000 && (best == "" || major > bestMajor) {
			best, bestMajor = f, major
		}
	}
	if best == "" {
		t.Logf("no pg_dump for server %d among %v: copying every table out", serverNum, found)
		return copyAllTables(t, conn)
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, best, "--dbname="+ownerURL)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "CREATE TABLE public.events") {
		t.Fatalf("the dump holds no events table:\n%.2000s", out.String())
	}
	return out.String()
}

// copyAllTables is the data of every table of every schema, as COPY
// writes it.
func copyAllTables(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	ctx := t.Context()
	rows, err := conn.Query(ctx, `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, table := range tables {
		out.WriteString("-- " + table + "\n")
		if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY "+table+" TO STDOUT"); err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
	}
	if !strings.Contains(out.String(), "-- public.events") {
		t.Fatal("no events table copied")
	}
	return out.String()
}

// personalForms are the forms in which the erased player's data could sit
// in a dump: as written, case-folded, JSON-escaped (and ASCII-escaped).
func personalForms() []string {
	forms := []string{erasedName, erasedFragment, erasedEmail, erasedLocal, erasedHook, "featherstonehaugh-hook"}
	j, _ := json.Marshal(erasedName)
	forms = append(forms, strings.Trim(string(j), `"`))
	var ascii strings.Builder
	for _, r := range erasedName {
		if r > 127 {
			ascii.WriteString(`\u00` + strconv.FormatInt(int64(r), 16))
			continue
		}
		ascii.WriteRune(r)
	}
	forms = append(forms, ascii.String())
	return forms
}

// leaks lists the personal forms a dump holds (case-insensitively).
func leaks(dump string) []string {
	folded := strings.ToLower(dump)
	var out []string
	for _, f := range personalForms() {
		if strings.Contains(folded, strings.ToLower(f)) {
			out = append(out, f)
		}
	}
	return out
}

// waitJobsIdle waits until no mail job is waiting or running.
func waitJobsIdle(t *testing.T, env *testEnv) {
	t.Helper()
	eventually.True(t, time.Minute, func() bool {
		var n int
		if err := env.pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job
			WHERE kind = 'azuld_mail' AND state IN ('available', 'running', 'scheduled', 'retryable')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	}, "mail jobs still waiting after a minute")
}

func TestDeleteAccountLeavesNoPersonalDataAndGamesGoOn(t *testing.T) {
	t.Parallel()
	owner := pg.NewDatabase(t)
	env := newTestEnvAt(t, pg.ServerRoleURL(t, owner), 0)
	sink := &captureMailer{}
	env.startMailWorker(t, sink)

	zed := env.registerAs(t, erasedName, erasedEmail)
	bart := env.registerAs(t, "Bartholomew Stays", "bart.stays@example.org")
	cass := env.registerAs(t, "Cassiopeia Stays", "cass.stays@example.org")
	zed.call(http.MethodPost, "/v1/webhooks", map[string]string{"url": erasedHook}).mustStatus(t, http.StatusCreated)

	// g1: Zed against Bart; Zed moves by mail and through the API, and
	// asks to take a move back (Bart's mail names the requester).
	g1 := zed.createGame(play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("ab", 32),
		Seats: []play.SeatSpec{{Player: "me"}, {Player: bart.Player.ID}}})
	moveAsAPI := func(c *client, id string) {
		t.Helper()
		g := c.getGame(id)
		if len(g.LegalMoves) == 0 {
			t.Fatalf("%s has no legal move in %s (to act %v)", c.Player.Name, id, g.ToAct)
		}
		c.call(http.MethodPost, "/v1/games/"+id+"/moves", map[string]any{"move": g.LegalMoves[0].Move}).mustStatus(t, http.StatusCreated)
	}
	byMail, byAPI := false, false
	for step := 0; step < 12 && !(byMail && byAPI); step++ {
		g := bart.getGame(g1.ID)
		if !slices.Contains(g.ToAct, 0) {
			moveAsAPI(bart, g1.ID)
			continue
		}
		if byMail {
			moveAsAPI(zed, g1.ID)
			byAPI = true
			continue
		}
		turn := sink.waitMail(t, func(h mail.Header) bool {
			_, v, s, ok := compose.ParseMessageID(h.Get("Message-Id"), "mail.test")
			return ok && v == g.Version && s == 0 && strings.Contains(h.Get("Message-Id"), ".turn@")
		})
		replyTo, err := mail.ParseAddress(turn.Get("Reply-To"))
		if err != nil {
			t.Fatal(err)
		}
		raw := "From: " + erasedEmail + "\r\nTo: " + replyTo.Address + "\r\nSubject: Re: your turn\r\nMessage-ID: <zed-" +
			strconv.Itoa(step) + "@example.org>\r\nIn-Reply-To: " + turn.Get("Message-Id") + "\r\n\r\n1\r\n"
		var out struct{ Outcome string }
		env.anonymous(t).call(http.MethodPost, "/v1/inbound/email?to="+url.QueryEscape(replyTo.Address), raw,
			header{"Authorization", "Bearer " + testInboundSecret}, header{"Content-Type", "message/rfc822"}).
			mustStatus(t, http.StatusOK).decode(t, &out)
		if out.Outcome != "applied" {
			t.Fatalf("Zed's mail move: %q", out.Outcome)
		}
		byMail = true
	}
	if !byMail || !byAPI {
		t.Fatalf("Zed moved by mail %v, through the API %v", byMail, byAPI)
	}
	zed.call(http.MethodPost, "/v1/games/"+g1.ID+"/takebacks", map[string]int{"moves": 1}).mustStatus(t, http.StatusCreated)

	// g2: against Cass, with a time control that forfeits.
	g2 := zed.createGame(play.CreateGame{Ruleset: "azul-mini",
		Seats:       []play.SeatSpec{{Player: "me"}, {Player: cass.Player.ID}},
		TimeControl: &play.TimeControl{PerMove: play.Duration(24 * time.Hour), OnTimeout: "forfeit"}})
	// g3: Zed alone in a game waiting for a player; g4: Bart's, Zed joined.
	g3 := zed.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}})
	g4 := bart.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}, {}}})
	zed.call(http.MethodPost, "/v1/games/"+g4.ID+"/join", nil).mustStatus(t, http.StatusOK)
	// g5: finished (Zed resigned against a bot).
	g5 := zed.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy"}}})
	zed.call(http.MethodPost, "/v1/games/"+g5.ID+"/moves", map[string]string{"notation": "resign"}).mustStatus(t, http.StatusCreated)
	games := []string{g1.ID, g2.ID, g3.ID, g4.ID, g5.ID}

	env.caughtUp(t)
	waitJobsIdle(t, env)
	// The check can fail: before the erasure, the dump holds it all.
	if found := leaks(pgDump(t, owner)); !slices.Contains(found, erasedFragment) || !slices.Contains(found, erasedEmail) || !slices.Contains(found, erasedHook) {
		t.Fatalf("before the erasure the dump should hold the name, the address and the hook, found %q", found)
	}

	// Bad requests change nothing.
	zed.call(http.MethodDelete, "/v1/me", "please").mustStatus(t, http.StatusBadRequest).problem(t)
	env.anonymous(t).call(http.MethodDelete, "/v1/me", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	(&client{t: t, env: env, token: "azt_wrong"}).call(http.MethodDelete, "/v1/me", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	zed.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK)
	if g := bart.getGame(g1.ID); g.Seats[0].PlayerID != zed.Player.ID || g.Seats[0].Name != erasedName {
		t.Fatalf("a refused deletion changed g1's seat: %+v", g.Seats[0])
	}

	zed.call(http.MethodDelete, "/v1/me", nil).mustStatus(t, http.StatusNoContent)
	zed.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	zed.call(http.MethodDelete, "/v1/me", nil).mustStatus(t, http.StatusUnauthorized).problem(t)

	// Every game goes on without Zed.
	after1 := bart.getGame(g1.ID)
	if s := after1.Seats[0]; s.PlayerID != "" || s.Bot != "greedy" || s.Left != play.LeftToBot || after1.Status != play.StatusActive {
		t.Fatalf("g1 after the erasure: %s, seat 0 %+v", after1.Status, s)
	}
	for range 3 {
		if g := bart.getGame(g1.ID); g.Status == play.StatusActive {
			moveAsAPI(bart, g1.ID)
		}
	}
	recs, err := env.svc.Events(context.Background(), g1.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	left, botMoves := int64(0), 0
	for _, r := range recs {
		if r.Type == play.EvSeatLeft {
			left = r.Version
		}
		if left > 0 && r.Version > left && r.Meta.Actor.Kind == "bot" && r.Meta.Actor.Seat != nil && *r.Meta.Actor.Seat == 0 {
			botMoves++
		}
	}
	if left == 0 || botMoves == 0 {
		t.Fatalf("g1: seat_left at %d, %d bot moves for seat 0 after it", left, botMoves)
	}
	if g := cass.getGame(g2.ID); g.Status != play.StatusFinished || g.Seats[0].Left != play.LeftForfeit || g.Final == nil || g.Final.Winners[0] != 1 {
		t.Fatalf("g2 should be forfeited by seat 0: %s %+v %+v", g.Status, g.Seats, g.Final)
	}
	if g := bart.getGame(g3.ID); g.Status != play.StatusOpen || g.Seats[0].PlayerID != "" || g.Seats[0].Bot != "" {
		t.Fatalf("g3 should wait with a free seat 0: %s %+v", g.Status, g.Seats)
	}
	if g := bart.getGame(g4.ID); g.Status != play.StatusOpen || slices.ContainsFunc(g.Seats, func(s play.Seat) bool { return s.PlayerID == zed.Player.ID }) {
		t.Fatalf("g4 should have Zed's seat free: %s %+v", g.Status, g.Seats)
	}
	if g := bart.getGame(g5.ID); g.Seats[0].PlayerID != zed.Player.ID || g.Seats[0].Name != play.FormerPlayer {
		t.Fatalf("g5 (finished) shows seat 0 as %+v, want the id and %q", g.Seats[0], play.FormerPlayer)
	}
	// The lists read names at read time too.
	var list struct{ Games []gameSummary }
	bart.call(http.MethodGet, "/v1/games?player=me", nil).mustStatus(t, http.StatusOK).decode(t, &list)
	if len(list.Games) != 2 {
		t.Fatalf("Bart's games: %d, want 2", len(list.Games))
	}
	// Bart's game can still be filled: Cass joins g3, whose seat Zed left.
	cass.call(http.MethodPost, "/v1/games/"+g3.ID+"/join", nil).mustStatus(t, http.StatusOK)

	env.caughtUp(t)
	waitJobsIdle(t, env)
	for _, id := range games {
		if _, err := env.svc.Game(context.Background(), id); err != nil {
			t.Fatalf("game %s does not load: %v", id, err)
		}
		v, err := env.svc.Verify(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Result != play.VerifyPass && v.Result != play.VerifyCommitted {
			t.Fatalf("game %s verifies %s: %+v", id, v.Result, v.Mismatch)
		}
		// What the API shows of a game names the seat "former player".
		for _, path := range []string{"", "/events", "/rounds", "/export"} {
			body := bart.call(http.MethodGet, "/v1/games/"+id+path, nil).mustStatus(t, http.StatusOK).Body
			if found := leaks(string(body)); len(found) > 0 {
				t.Fatalf("GET %s%s holds %q", id, path, found)
			}
		}
	}
	if found := leaks(pgDump(t, owner)); len(found) > 0 {
		t.Fatalf("after the erasure the dump still holds %q", found)
	}
	for _, id := range games {
		var buf bytes.Buffer
		if err := env.svc.Export(context.Background(), id, &buf); err != nil {
			t.Fatal(err)
		}
		if found := leaks(buf.String()); len(found) > 0 {
			t.Fatalf("the export of %s holds %q", id, found)
		}
	}
}
