package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Notice says that a stream changed. Notices are wake-up hints, never the
// data: on a notice, read the store.
type Notice struct {
	StreamID string
	// Version is the stream's version after the append. 0 means "anything
	// may have changed": it is sent to every subscriber when the listener
	// (re)connects, since appends made while it was not listening sent
	// their notifications to nobody.
	Version int64
}

// subscriberBuffer is how many notices wait for a slow subscriber. When
// its buffer is full, further notices are dropped: the pending ones still
// wake it, and it reads the store anyway.
const subscriberBuffer = 16

// Listener receives the notifications of every append, from every azuld
// replica, on one LISTEN connection per process, and fans them out to
// in-process subscribers. The connection lives outside any pool (it is
// busy for ever) and is re-established when it fails.
type Listener struct {
	connString string
	log        *slog.Logger

	mu      sync.Mutex
	subs    map[string]map[*subscription]struct{} // by stream id; "" for SubscribeAll
	running bool
	stopped bool
}

type subscription struct {
	streamID string // "" for every stream
	ch       chan Notice
}

// NewListener returns a listener that connects with connString (a URL or a
// keyword/value connection string). Nothing happens until Run.
func NewListener(connString string, logger *slog.Logger) *Listener {
	if logger == nil {
		logger = slog.Default()
	}
	return &Listener{connString: connString, log: logger, subs: map[string]map[*subscription]struct{}{}}
}

// Subscribe returns the notices of one stream, and a cancel function that
// releases the subscription (safe to call more than once). Each
// (re)connection of the listener sends a Notice with Version 0, so a
// subscriber that subscribes first and then reads the store misses
// nothing. The channel is closed when Run returns; subscribing after that
// gives a closed channel.
func (l *Listener) Subscribe(streamID string) (<-chan Notice, func()) {
	if id, err := canonicalID(streamID); err == nil {
		streamID = id
	}
	return l.subscribe(streamID)
}

// SubscribeAll returns the notices of every stream (see Subscribe).
func (l *Listener) SubscribeAll() (<-chan Notice, func()) { return l.subscribe("") }

func (l *Listener) subscribe(key string) (<-chan Notice, func()) {
	sub := &subscription{streamID: key, ch: make(chan Notice, subscriberBuffer)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		close(sub.ch)
		return sub.ch, func() {}
	}
	set := l.subs[key]
	if set == nil {
		set = map[*subscription]struct{}{}
		l.subs[key] = set
	}
	set[sub] = struct{}{}
	var once sync.Once
	return sub.ch, func() { once.Do(func() { l.unsubscribe(sub) }) }
}

func (l *Listener) unsubscribe(sub *subscription) {
	l.mu.Lock()
	defer l.mu.Unlock()
	set, ok := l.subs[sub.streamID]
	if !ok {
		return // already closed by Run's end
	}
	if _, ok := set[sub]; !ok {
		return
	}
	delete(set, sub)
	if len(set) == 0 {
		delete(l.subs, sub.streamID)
	}
	close(sub.ch)
}

// Reconnection back-off bounds.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// Run listens until ctx ends, reconnecting after failures with a growing
// pause, then closes every subscription and returns nil. It fails at
// once only if the connection string does not parse or Run is already
// running.
func (l *Listener) Run(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(l.connString)
	if err != nil {
		return fmt.Errorf("event listener: %w", err)
	}
	// A listening connection only reads: without keep-alives, one to a
	// primary lost in a fail-over would wait for notifications forever.
	ConfigureConn(&cfg.Config, l.connString)
	l.mu.Lock()
	if l.running || l.stopped {
		l.mu.Unlock()
		return errors.New("event listener: Run was already called")
	}
	l.running = true
	l.mu.Unlock()
	defer l.stop()

	backoff := minBackoff
	for ctx.Err() == nil {
		listened, err := l.listen(ctx, cfg)
		if ctx.Err() != nil {
			break
		}
		if listened {
			backoff = minBackoff
		}
		l.log.WarnContext(ctx, "event listener: connection lost, reconnecting", "err", err, "in", backoff.String())
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
	return nil
}

// listen runs one connection: LISTEN, a resync notice, then the
// notifications until an error. listened reports whether LISTEN worked.
func (l *Listener) listen(ctx context.Context, cfg *pgx.ConnConfig) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	l.resync()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, fmt.Errorf("wait for notifications: %w", err)
		}
		notices, err := ParseNotification(n.Payload)
		if err != nil {
			l.log.WarnContext(ctx, "event listener: ignoring a malformed notification", "err", err)
			continue
		}
		l.dispatch(notices)
	}
}

// ParseNotification reads the payload of a notification on
// NotifyChannel: "<stream id>:<version>" entries separated by commas.
func ParseNotification(payload string) ([]Notice, error) {
	if len(payload) > maxPayload {
		return nil, fmt.Errorf("%w: notification of %d bytes", ErrInvalid, len(payload))
	}
	var out []Notice
	for entry := range strings.SplitSeq(payload, ",") {
		id, v, ok := strings.Cut(entry, ":")
		if !ok {
			return nil, fmt.Errorf("%w: notification entry %.80q has no version", ErrInvalid, entry)
		}
		streamID, err := canonicalID(id)
		if err != nil {
			return nil, err
		}
		version, err := strconv.ParseInt(v, 10, 64)
		if err != nil || version < 1 {
			return nil, fmt.Errorf("%w: notification entry %.80q: bad version", ErrInvalid, entry)
		}
		out = append(out, Notice{StreamID: streamID, Version: version})
	}
	return out, nil
}

func (l *Listener) dispatch(notices []Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range notices {
		for sub := range l.subs[n.StreamID] {
			offer(sub.ch, n)
		}
		for sub := range l.subs[""] {
			offer(sub.ch, n)
		}
	}
}

// resync tells every subscriber that anything may have changed.
func (l *Listener) resync() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, set := range l.subs {
		for sub := range set {
			offer(sub.ch, Notice{StreamID: sub.streamID})
		}
	}
}

// offer never blocks: a full buffer already holds a wake-up.
func offer(ch chan Notice, n Notice) {
	select {
	case ch <- n:
	default:
	}
}

func (l *Listener) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	for key, set := range l.subs {
		for sub := range set {
			close(sub.ch)
		}
		delete(l.subs, key)
	}
}
