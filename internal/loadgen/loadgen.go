// Package loadgen plays many games at once against an azuld server
// through its public API, as players would, and measures what they get:
// moves acknowledged per second, the latency of each move, and errors.
// It runs in a process of its own (cmd/azul-load), so that azuld's
// figures compare fairly with pgbench's against the same PostgreSQL.
//
// Each client registers the players of one game at a time, creates the
// game with every seat its own, and plays it to the end: for the seat to
// act, GET …/legal-moves, then POST …/moves with one of them, If-Match
// the version it was chosen at and an Idempotency-Key, sending the same
// request again after a 503, a 429 or a lost connection. Then it starts
// another game.
package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Config says what to play and for how long.
type Config struct {
	// URL is azuld's base URL (http://127.0.0.1:8080).
	URL string
	// MetricsURL is where azuld serves /metrics (its AZUL_METRICS_ADDR,
	// as a base URL; empty: URL), MetricsToken the bearer token the public
	// port wants for it (AZUL_METRICS_TOKEN; empty: none sent). The
	// follower's lag is read there.
	MetricsURL, MetricsToken string
	// Clients play at once, one game each at a time.
	Clients int
	// Rate, when > 0, paces the moves of all clients together to this
	// many a second; 0: each client moves as soon as it can.
	Rate float64
	// Duration and Moves end the run, whichever comes first (0: no
	// limit; one of them must be set).
	Duration time.Duration
	Moves    int
	// Rulesets are the rule sets the games take turns with (nil: all
	// three); Players the seats of each game (2 to 4).
	Rulesets []string
	Players  int
	// BotSeat, when set, gives each game one more seat played by the
	// server's bot of that kind (its moves then come from azuld's job
	// workers, and the clients wait for them).
	BotSeat string
	// Progress receives a progress line every Interval (nil: none).
	Progress io.Writer
	Interval time.Duration
	// HTTP is the client (nil: one with a connection per client).
	HTTP *http.Client
	// Seed varies the moves chosen.
	Seed uint64
	// Feel names what a player feels of the moves to measure besides
	// their answers: FeelMail, FeelBot, FeelWeb.
	Feel []string
	// SMTPListen is the address of the load tool's SMTP server, through
	// which azuld must relay its mails (AZUL_SMTP_URL=smtp://SMTPListen?tls=none),
	// for FeelMail.
	SMTPListen string
	// MailWait is how long a player waits for its turn mail before it
	// moves without it (default DefaultMailWait).
	MailWait time.Duration
}

// AllRulesets are azuld's rule sets.
var AllRulesets = []string{"azul-mini", "summer-pavilion", "summer-pavilion-mini"}

// maxTries bounds the attempts of one request.
const maxTries = 8

func (c *Config) check() error {
	switch {
	case c.URL == "":
		return errors.New("loadgen: no URL")
	case c.Clients < 1:
		return errors.New("loadgen: at least one client")
	case c.Duration <= 0 && c.Moves <= 0:
		return errors.New("loadgen: give a duration or a number of moves")
	case c.Rate < 0:
		return errors.New("loadgen: negative rate")
	}
	c.URL = strings.TrimRight(c.URL, "/")
	if len(c.Rulesets) == 0 {
		c.Rulesets = AllRulesets
	}
	if c.Players == 0 {
		c.Players = 2
	}
	if c.Players < 1 || c.Players+btoi(c.BotSeat != "") < 2 || c.Players+btoi(c.BotSeat != "") > 4 {
		return errors.New("loadgen: a game has 2 to 4 seats")
	}
	if c.Interval <= 0 {
		c.Interval = 5 * time.Second
	}
	for _, k := range c.Feel {
		switch {
		case k == FeelMail && c.SMTPListen == "":
			return errors.New("loadgen: measuring mail needs the SMTP server's address (SMTPListen)")
		case k == FeelBot && c.BotSeat == "":
			return errors.New("loadgen: measuring the bot needs a bot seat")
		case k != FeelMail && k != FeelBot && k != FeelWeb:
			return fmt.Errorf("%w: %q", errNoFeel, k)
		}
	}
	if c.MailWait <= 0 {
		c.MailWait = DefaultMailWait
	}
	if c.HTTP == nil {
		c.HTTP = &http.Client{
			Timeout:   30 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: c.Clients + 4, MaxIdleConns: c.Clients + 4, IdleConnTimeout: time.Minute},
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Run plays until the duration or the number of moves is reached, or ctx
// ends, and returns the summary. It fails only when no game can be set
// up (the server is unreachable, registration is refused); errors of
// single moves are counted in the summary.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if err := cfg.check(); err != nil {
		return Summary{}, err
	}
	rec := newRecorder(cfg.Feel)
	run := &runner{cfg: cfg, rec: rec, tag: uuid.NewString()[:8]}
	for _, k := range cfg.Feel {
		switch k {
		case FeelMail:
			if run.mail == nil {
				mb, err := listenMail(cfg.SMTPListen, rec)
				if err != nil {
					return Summary{}, err
				}
				// Closed when the clients are done (below).
				run.mail = mb
			}
		case FeelBot:
			run.feelBot = true
		case FeelWeb:
			run.feelWeb = true
		}
	}
	if run.feelBot || run.feelWeb {
		// Streams last a game: no timeout, connections of their own.
		run.streams = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Clients + 4, IdleConnTimeout: time.Minute}}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Duration > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, cfg.Duration)
		defer stop()
	}
	run.cancel = cancel
	if cfg.Rate > 0 {
		run.pace = &pacer{every: time.Duration(float64(time.Second) / cfg.Rate)}
	}
	// The follower's lag comes from azuld's own histogram, read before and
	// after the run (a server without it just has no figure).
	lagBefore, lagKnown, _ := scrapeHistogram(ctx, cfg.HTTP, cfg.metricsURL(), cfg.MetricsToken, followerLagMetric)
	begun := time.Now()
	done := make(chan struct{})
	var reporter sync.WaitGroup
	if cfg.Progress != nil {
		reporter.Go(func() {
			t := time.NewTicker(cfg.Interval)
			defer t.Stop()
			last := begun
			for {
				select {
				case <-done:
					return
				case now := <-t.C:
					rec.progress(cfg.Progress, now.Sub(begun), now.Sub(last))
					last = now
				}
			}
		})
	}
	var wg sync.WaitGroup
	fatal := make([]error, cfg.Clients)
	for i := range cfg.Clients {
		wg.Go(func() { fatal[i] = run.client(ctx, i) })
	}
	wg.Wait()
	close(done)
	reporter.Wait()
	elapsed := time.Since(begun)
	if run.mail != nil {
		run.mail.close()
	}
	sum := rec.summary(cfg, elapsed)
	if lagKnown {
		// The run's context has ended: read with the caller's.
		if after, ok, err := scrapeHistogram(context.WithoutCancel(ctx), cfg.HTTP, cfg.metricsURL(), cfg.MetricsToken, followerLagMetric); err == nil && ok {
			sum.Follower = followerLag(lagBefore, after)
		}
	}
	if sum.Moves == 0 {
		if err := errors.Join(fatal...); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// runner is one run's shared state.
type runner struct {
	cfg    Config
	rec    *recorder
	pace   *pacer
	cancel context.CancelFunc
	// tag names this run's players.
	tag string
	// mail is the SMTP server of FeelMail; streams the client of the
	// event streams of FeelBot and FeelWeb.
	mail             *mailbox
	streams          *http.Client
	feelBot, feelWeb bool
}

// pacer hands out evenly spaced moments for a target rate.
type pacer struct {
	mu    sync.Mutex
	next  time.Time
	every time.Duration
}

// wait blocks until the caller's turn.
func (p *pacer) wait(ctx context.Context) error {
	p.mu.Lock()
	now := time.Now()
	if p.next.Before(now) {
		p.next = now
	}
	at := p.next
	p.next = p.next.Add(p.every)
	p.mu.Unlock()
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// player is one registered player of a client.
type player struct {
	ID    string `json:"id"`
	Token string `json:"token"`
	// email is the address it was registered with (FeelMail).
	email string
}

// errSetup: a game could not be set up; the client stops.
var errSetup = errors.New("cannot set up a game")

// client plays games one after another until ctx ends.
func (r *runner) client(ctx context.Context, n int) error {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(n)))
	players := make([]player, r.cfg.Players)
	for i := range players {
		var p player
		name := fmt.Sprintf("load-%s-%d-%d", r.tag, n, i)
		body := map[string]string{"name": name}
		if r.mail != nil {
			// Players by mail: their turn mails come to the load tool's
			// SMTP server, which knows them by address.
			body["email"] = name + "@" + MailDomain
		}
		if err := r.call(ctx, http.MethodPost, "/v1/players", "", body, nil, &p); err != nil {
			return fmt.Errorf("%w: register a player: %v", errSetup, err)
		}
		p.email = body["email"]
		players[i] = p
	}
	left := 0
	for game := 0; ctx.Err() == nil; game++ {
		ruleset := r.cfg.Rulesets[(n+game)%len(r.cfg.Rulesets)]
		id, err := r.create(ctx, ruleset, players)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		r.rec.game(false)
		moved, err := r.play(ctx, id, players, rng)
		switch {
		case errors.Is(err, errGameLeft) && moved == 0:
			if left++; left >= maxLeftInARow {
				return fmt.Errorf("%d games in a row left before their first move; the last: %w", left, err)
			}
		case err != nil && !errors.Is(err, errGameLeft):
			return err
		default:
			left = 0
		}
	}
	return nil
}

// create creates a game whose seats are the client's players (and the
// bot seat), and has the players it invites accept.
func (r *runner) create(ctx context.Context, ruleset string, players []player) (string, error) {
	seats := []map[string]string{{"player": "me"}}
	for _, p := range players[1:] {
		seats = append(seats, map[string]string{"player": p.ID})
	}
	if r.cfg.BotSeat != "" {
		seats = append(seats, map[string]string{"bot": r.cfg.BotSeat})
	}
	var g struct {
		ID string `json:"id"`
	}
	// Keyed, so that a retry never creates a second game.
	key := map[string]string{"Idempotency-Key": uuid.NewString()}
	err := r.call(ctx, http.MethodPost, "/v1/games", players[0].Token, map[string]any{"ruleset": ruleset, "seats": seats}, key, &g)
	if err != nil {
		return "", fmt.Errorf("%w: create a %s game: %v", errSetup, ruleset, err)
	}
	// The other players' seats are invitations: each accepts (joins).
	// A join whose answer was lost and is sent again finds the seat
	// taken by its own player (403): that is an acceptance too.
	for _, p := range players[1:] {
		err := r.call(ctx, http.MethodPost, "/v1/games/"+g.ID+"/join", p.Token, nil, nil, nil)
		var se *statusError
		if err != nil && !(errors.As(err, &se) && se.status == http.StatusForbidden) {
			return "", fmt.Errorf("%w: accept the invitation to game %s: %v", errSetup, g.ID, err)
		}
	}
	return g.ID, nil
}

// legalMoves is the answer of GET …/legal-moves.
type legalMoves struct {
	Version int64 `json:"version"`
	ToAct   []int `json:"to_act"`
	Seats   []int `json:"seats"`
	Moves   []struct {
		Seat int             `json:"seat"`
		Move json.RawMessage `json:"move"`
	} `json:"moves"`
}

// moveAnswer is the answer of POST …/moves.
type moveAnswer struct {
	Version int64  `json:"version"`
	Status  string `json:"status"`
	ToAct   []int  `json:"to_act"`
}

// play plays a game to its end (or until ctx ends) and says how many
// moves it made.
func (r *runner) play(ctx context.Context, id string, players []player, rng *rand.Rand) (int, error) {
	toAct := []int{0}
	moved := 0
	var follow *follower
	if r.streams != nil {
		// The stream opens before the first move, as a page does when
		// the game is shown.
		f, err := r.follow(ctx, id)
		if err != nil {
			return 0, r.moveFailed(ctx, err)
		}
		defer f.finish()
		follow = f
	}
	for ctx.Err() == nil {
		seat := -1
		for _, s := range toAct {
			if s < len(players) {
				seat = s
				break
			}
		}
		if seat < 0 {
			// The server's bot is to act: look again shortly.
			var lm legalMoves
			if err := sleep(ctx, 10*time.Millisecond); err != nil {
				return moved, nil
			}
			if err := r.call(ctx, http.MethodGet, "/v1/games/"+id+"/legal-moves", players[0].Token, nil, nil, &lm); err != nil {
				return moved, r.moveFailed(ctx, err)
			}
			if len(lm.ToAct) == 0 {
				r.rec.game(true)
				return moved, nil
			}
			toAct = lm.ToAct
			continue
		}
		p := players[seat]
		var lm legalMoves
		begun := time.Now()
		if err := r.call(ctx, http.MethodGet, "/v1/games/"+id+"/legal-moves", p.Token, nil, nil, &lm); err != nil {
			return moved, r.moveFailed(ctx, err)
		}
		r.rec.read(time.Since(begun))
		if len(lm.ToAct) == 0 {
			r.rec.game(true)
			return moved, nil
		}
		var mine []json.RawMessage
		for _, m := range lm.Moves {
			if m.Seat == seat {
				mine = append(mine, m.Move)
			}
		}
		if len(mine) == 0 || !slices.Contains(lm.ToAct, seat) {
			toAct = lm.ToAct
			continue
		}
		if r.pace != nil {
			if err := r.pace.wait(ctx); err != nil {
				return moved, nil
			}
		}
		headers := map[string]string{
			"If-Match":        `"` + strconv.FormatInt(lm.Version, 10) + `"`,
			"Idempotency-Key": uuid.NewString(),
		}
		var ans moveAnswer
		begun = time.Now()
		err := r.call(ctx, http.MethodPost, "/v1/games/"+id+"/moves", p.Token, mine[rng.IntN(len(mine))], headers, &ans)
		var se *statusError
		switch {
		case errors.As(err, &se) && se.status == http.StatusConflict:
			r.rec.conflict()
			toAct = []int{seat}
			continue
		case err != nil:
			return moved, r.moveFailed(ctx, err)
		}
		acked := time.Now()
		r.rec.move(acked.Sub(begun))
		moved++
		if follow != nil {
			if r.feelWeb {
				follow.expect(FeelWeb, ans.Version, acked)
			}
			if r.feelBot && ans.Status == "active" && onlyBots(ans.ToAct, len(players)) {
				// The bot's move is the next version.
				follow.expect(FeelBot, ans.Version+1, acked)
			}
		}
		if r.mail != nil && ans.Status == "active" {
			if next := firstPlayer(ans.ToAct, len(players)); next >= 0 {
				if err := r.awaitMail(ctx, mailKey{game: id, version: ans.Version, seat: next}, players[next].email, acked); err != nil {
					return moved, nil
				}
			}
		}
		if r.cfg.Moves > 0 && r.rec.moveCount() >= r.cfg.Moves {
			r.cancel()
		}
		if ans.Status != "active" {
			r.rec.game(true)
			return moved, nil
		}
		toAct = ans.ToAct
	}
	return moved, nil
}

// onlyBots says whether every seat to act is a bot's (seats from
// players on).
func onlyBots(toAct []int, players int) bool {
	for _, s := range toAct {
		if s < players {
			return false
		}
	}
	return len(toAct) > 0
}

// firstPlayer is the first of the client's seats to act (-1: none), the
// one the client moves next.
func firstPlayer(toAct []int, players int) int {
	for _, s := range toAct {
		if s < players {
			return s
		}
	}
	return -1
}

// awaitMail waits, as a player by mail does before its move, for the
// seat's turn mail; after MailWait it moves without (the mail missing).
// It fails only when ctx ends.
func (r *runner) awaitMail(ctx context.Context, k mailKey, to string, acked time.Time) error {
	done, giveUp := r.mail.expect(k, to, acked)
	t := time.NewTimer(r.cfg.MailWait)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		giveUp(true)
		return nil
	case <-ctx.Done():
		giveUp(false)
		return ctx.Err()
	}
}

// moveFailed counts a failed request of a game, which is then left: the
// client goes on with a new game.
func (r *runner) moveFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	r.rec.fail(errorKind(err))
	return fmt.Errorf("%w: %v", errGameLeft, err)
}

// errGameLeft: a request of a game failed and the game was left.
var errGameLeft = errors.New("game left")

// maxLeftInARow is how many games in a row a client may leave before
// any move before it gives up: a server that refuses every move would
// otherwise keep a run without a duration going for ever.
const maxLeftInARow = 10

// statusError is an answer other than 2xx.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d: %.200s", e.status, e.body)
}

// errorKind names an error in the summary.
func errorKind(err error) string {
	var se *statusError
	if errors.As(err, &se) {
		return strconv.Itoa(se.status)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return "transport"
}

// call sends a request, again after a 503, 502, 504, a 429 or a
// transport error (the same body and headers, so the same
// Idempotency-Key), and decodes a 2xx answer into out.
func (r *runner) call(ctx context.Context, method, path, token string, body any, headers map[string]string, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode the request: %w", err)
		}
	}
	var last error
	for try := range maxTries {
		if try > 0 {
			r.rec.retry()
			wait := time.Duration(10<<min(try, 6)) * time.Millisecond
			var se *statusError
			if errors.As(last, &se) && se.status == http.StatusTooManyRequests {
				wait = time.Second
			}
			if err := sleep(ctx, wait); err != nil {
				return err
			}
		}
		status, data, err := r.send(ctx, method, path, token, payload, headers)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			last = err
			continue
		case status == http.StatusServiceUnavailable || status == http.StatusBadGateway ||
			status == http.StatusGatewayTimeout || status == http.StatusTooManyRequests:
			last = &statusError{status: status, body: string(data)}
			continue
		case status < 200 || status > 299:
			return &statusError{status: status, body: string(data)}
		}
		if out != nil {
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
			}
		}
		return nil
	}
	return last
}

// send is one attempt of a request.
func (r *runner) send(ctx context.Context, method, path, token string, payload []byte, headers map[string]string) (int, []byte, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.cfg.URL+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := r.cfg.HTTP.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return resp.StatusCode, data, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
