package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/azuld/azuld/mail/compose"
)

// What a player feels of a move, besides its own answer: the kinds of
// Config.Feel.
const (
	// FeelMail: from a move's 201 to the next player's turn mail handed
	// to the SMTP relay (the load tool's own SMTP server).
	FeelMail = "mail"
	// FeelBot: from the 201 of the move that gave the bot seat its turn
	// to the bot's move being visible on the game's event stream.
	FeelBot = "bot"
	// FeelWeb: from a move's 201 to the game's event stream (what a web
	// page following the game listens to) announcing its new state.
	FeelWeb = "web"
)

// MailDomain is the domain of the addresses the players are registered
// with when mail is measured; the load tool's SMTP server takes any.
const MailDomain = "load.test"

// DefaultMailWait is how long a player who plays by mail waits for its
// turn mail before it moves without it (the mail counted missing).
const DefaultMailWait = 30 * time.Second

// feelWait is how long, at the end of a game, the stream is kept open for
// the moves still unseen on it.
const feelWait = 5 * time.Second

// feelStats gathers one kind's samples.
type feelStats struct {
	all, window []time.Duration
	// early: seen before the move's answer was read (counted as 0);
	// missing: never seen within the wait.
	early, missing int
	// mismatched: a mail addressed to another player than the seat's;
	// unclaimed: turn mails no move waited for.
	mismatched, unclaimed int
}

func (f *feelStats) add(d time.Duration) {
	if d <= 0 {
		d = 0
		f.early++
	}
	f.all = append(f.all, d)
	f.window = append(f.window, d)
}

// FeelLatency is one kind's latency distribution and its counts.
type FeelLatency struct {
	Latency
	// Samples are the moves measured.
	Samples int `json:"samples"`
	// Early are samples seen before the move's answer was read (counted
	// as 0 ms); Missing awaited and never seen within the wait.
	Early   int `json:"early"`
	Missing int `json:"missing"`
	// Mismatched are turn mails addressed to another player than the
	// seat's; Unclaimed turn mails no move waited for (a seat's first
	// turn, a turn the bot's move gave).
	Mismatched int `json:"mismatched,omitempty"`
	Unclaimed  int `json:"unclaimed,omitempty"`
}

func (f *feelStats) summary() *FeelLatency {
	return &FeelLatency{
		Latency: latency(append([]time.Duration(nil), f.all...)), Samples: len(f.all),
		Early: f.early, Missing: f.missing, Mismatched: f.mismatched, Unclaimed: f.unclaimed,
	}
}

// Feel is what the players felt, by kind (nil: not measured).
type Feel struct {
	Mail *FeelLatency `json:"mail,omitempty"`
	Bot  *FeelLatency `json:"bot,omitempty"`
	Web  *FeelLatency `json:"web,omitempty"`
}

// mailKey names a turn mail: the game, the version its moves refer to
// and the seat it is for, as its Message-ID carries them.
type mailKey struct {
	game    string
	version int64
	seat    int
}

// mailWaiter is a player waiting for its turn mail.
type mailWaiter struct {
	ack  time.Time
	to   string
	done chan struct{}
}

// mailArrival is a turn mail that came before anyone waited for it.
type mailArrival struct {
	at    time.Time
	rcpts []string
}

// mailbox is the load tool's SMTP server: azuld relays its mails
// through it, and it hands each turn mail to the player waiting for it.
type mailbox struct {
	rec     *recorder
	srv     *smtp.Server
	ln      net.Listener
	served  chan error
	mu      sync.Mutex
	waiting map[mailKey]*mailWaiter
	arrived map[mailKey]mailArrival
	// mails counts every mail received, turns or not.
	mails int
}

// listenMail starts the SMTP server on addr.
func listenMail(addr string, rec *recorder) (*mailbox, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("loadgen: SMTP server on %s: %w", addr, err)
	}
	mb := &mailbox{rec: rec, ln: ln, served: make(chan error, 1), waiting: map[mailKey]*mailWaiter{}, arrived: map[mailKey]mailArrival{}}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &mailSession{mb: mb}, nil }))
	srv.Domain = MailDomain
	srv.MaxMessageBytes = 16 << 20
	srv.MaxRecipients = 100
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	mb.srv = srv
	go func() { mb.served <- srv.Serve(ln) }()
	return mb, nil
}

// close stops the server and counts the turn mails nobody waited for.
func (mb *mailbox) close() {
	_ = mb.srv.Close()
	<-mb.served
	mb.mu.Lock()
	n := len(mb.arrived)
	mb.mu.Unlock()
	mb.rec.mu.Lock()
	mb.rec.feel[FeelMail].unclaimed += n
	mb.rec.mu.Unlock()
}

// expect registers a wait for a turn mail to address to, after a move
// answered at ack; the channel closes when it comes.
func (mb *mailbox) expect(k mailKey, to string, ack time.Time) (<-chan struct{}, func(timedOut bool)) {
	w := &mailWaiter{ack: ack, to: to, done: make(chan struct{})}
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if a, ok := mb.arrived[k]; ok {
		delete(mb.arrived, k)
		mb.record(w, a.at, a.rcpts)
		return w.done, func(bool) {}
	}
	mb.waiting[k] = w
	// give up: the mail did not come in time.
	// The player gives up waiting: a missing mail when it timed out
	// (not when the run ended).
	return w.done, func(timedOut bool) {
		mb.mu.Lock()
		defer mb.mu.Unlock()
		if mb.waiting[k] == w {
			delete(mb.waiting, k)
			if timedOut {
				mb.rec.mu.Lock()
				mb.rec.feel[FeelMail].missing++
				mb.rec.mu.Unlock()
			}
		}
	}
}

// record takes a mail's sample (mb.mu held).
func (mb *mailbox) record(w *mailWaiter, at time.Time, rcpts []string) {
	mb.rec.mu.Lock()
	f := mb.rec.feel[FeelMail]
	f.add(at.Sub(w.ack))
	if !containsFold(rcpts, w.to) {
		f.mismatched++
	}
	mb.rec.mu.Unlock()
	close(w.done)
}

// arrive hands a received mail to its waiter.
func (mb *mailbox) arrive(at time.Time, rcpts []string, raw []byte) {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	mb.mails++
	k, kind, ok := parseMail(raw)
	if !ok || kind != compose.KindTurn {
		return
	}
	if w, ok := mb.waiting[k]; ok {
		delete(mb.waiting, k)
		mb.record(w, at, rcpts)
		return
	}
	// Mails nobody waits for yet are kept a minute: a mail may overtake
	// the move's answer on its way to the client.
	for old, a := range mb.arrived {
		if at.Sub(a.at) > time.Minute {
			delete(mb.arrived, old)
			mb.rec.mu.Lock()
			mb.rec.feel[FeelMail].unclaimed++
			mb.rec.mu.Unlock()
		}
	}
	mb.arrived[k] = mailArrival{at: at, rcpts: rcpts}
}

// parseMail reads the game, version, seat and kind from a mail's
// Message-ID (compose.MessageID).
func parseMail(raw []byte) (mailKey, string, bool) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return mailKey{}, "", false
	}
	id := strings.Trim(strings.TrimSpace(m.Header.Get("Message-Id")), "<>")
	local, domain, found := strings.Cut(id, "@")
	if !found {
		return mailKey{}, "", false
	}
	game, version, seat, ok := compose.ParseMessageID(id, domain)
	if !ok {
		return mailKey{}, "", false
	}
	kind := local[strings.LastIndexByte(local, '.')+1:]
	return mailKey{game: game, version: version, seat: seat}, kind, true
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// mailSession is one SMTP transaction of azuld's relay.
type mailSession struct {
	mb    *mailbox
	rcpts []string
}

func (s *mailSession) Mail(string, *smtp.MailOptions) error { return nil }

func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.rcpts = append(s.rcpts, to)
	return nil
}

// Data takes the mail: it is handed to the relay once it is read whole.
func (s *mailSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read the mail: %w", err)
	}
	s.mb.arrive(time.Now(), s.rcpts, raw)
	return nil
}

func (s *mailSession) Reset()        { s.rcpts = nil }
func (s *mailSession) Logout() error { return nil }

// streamWant is a move waiting to be seen on the game's stream.
type streamWant struct {
	kind    string
	version int64
	ack     time.Time
}

// follower reads a game's event stream (GET /v1/games/{id}/stream) as a
// web page following the game does.
type follower struct {
	rec    *recorder
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	// state is the version of the last "state" message, any of the last
	// message of either kind.
	state, any int64
	wants      []streamWant
	changed    chan struct{}
}

// follow opens the stream and returns once its first state has come.
func (r *runner) follow(ctx context.Context, id string) (*follower, error) {
	// The stream outlives the run's end by up to feelWait (see finish).
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &follower{rec: r.rec, cancel: cancel, done: make(chan struct{}), state: -1, any: -1, changed: make(chan struct{}, 1)}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.cfg.URL+"/v1/games/"+id+"/stream", nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("stream of game %s: %w", id, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := r.streams.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("stream of game %s: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("stream of game %s: %w", id, &statusError{status: resp.StatusCode, body: string(body)})
	}
	go func() {
		defer close(f.done)
		defer resp.Body.Close()
		f.read(resp.Body)
	}()
	// The first state says the stream is open: what follows is news.
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	for {
		f.mu.Lock()
		open := f.state >= 0
		f.mu.Unlock()
		if open {
			return f, nil
		}
		select {
		case <-f.changed:
		case <-f.done:
			cancel()
			return nil, fmt.Errorf("stream of game %s ended before its first state", id)
		case <-t.C:
			f.close()
			return nil, fmt.Errorf("stream of game %s: no state within 10 s", id)
		}
	}
}

// read parses server-sent events until the stream ends.
func (f *follower) read(body io.Reader) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	event, id := "", int64(-1)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if event != "" && id >= 0 {
				f.seen(event, id, time.Now())
			}
			event, id = "", -1
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(line[len("event:"):])
		case strings.HasPrefix(line, "id:"):
			if v, err := strconv.ParseInt(strings.TrimSpace(line[len("id:"):]), 10, 64); err == nil {
				id = v
			}
		}
	}
}

// seen takes a message of the stream: the moves it shows are measured.
func (f *follower) seen(event string, id int64, at time.Time) {
	f.mu.Lock()
	f.any = max(f.any, id)
	if event == "state" {
		f.state = max(f.state, id)
	}
	kept := f.wants[:0]
	for _, w := range f.wants {
		if f.shows(w) {
			f.rec.feelSample(w.kind, at.Sub(w.ack))
		} else {
			kept = append(kept, w)
		}
	}
	f.wants = kept
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// shows says whether what the stream sent shows the move (f.mu held): a
// web page shows a move when a state of its version comes; the bot's
// move is visible with its first event.
func (f *follower) shows(w streamWant) bool {
	if w.kind == FeelWeb {
		return f.state >= w.version
	}
	return f.any >= w.version
}

// expect waits for version to be seen, of kind FeelWeb or FeelBot.
func (f *follower) expect(kind string, version int64, ack time.Time) {
	w := streamWant{kind: kind, version: version, ack: ack}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shows(w) {
		f.rec.feelSample(kind, 0)
		return
	}
	f.wants = append(f.wants, w)
}

// finish waits (up to feelWait) for the moves not yet seen, counts those
// still missing and closes the stream. It waits even when the run has
// ended, so that the run's last moves are measured too.
func (f *follower) finish() {
	deadline := time.NewTimer(feelWait)
	defer deadline.Stop()
wait:
	for {
		f.mu.Lock()
		left := len(f.wants)
		f.mu.Unlock()
		if left == 0 {
			break
		}
		select {
		case <-f.changed:
		case <-deadline.C:
			break wait
		case <-f.done:
			break wait
		}
	}
	f.close()
	f.mu.Lock()
	for _, w := range f.wants {
		f.rec.feelMissing(w.kind)
	}
	f.wants = nil
	f.mu.Unlock()
}

func (f *follower) close() {
	f.cancel()
	<-f.done
}

// errNoFeel: a feel kind that does not exist.
var errNoFeel = errors.New("loadgen: feel kinds are mail, bot and web")

// ParseFeel reads "mail,bot,web" (any of them).
func ParseFeel(s string) ([]string, error) {
	var out []string
	for k := range strings.SplitSeq(s, ",") {
		k = strings.TrimSpace(k)
		switch k {
		case "":
			continue
		case FeelMail, FeelBot, FeelWeb:
			out = append(out, k)
		default:
			return nil, fmt.Errorf("%w: %q", errNoFeel, k)
		}
	}
	return out, nil
}
