package events_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/events"
)

// next waits for the next notice on ch.
func next(t *testing.T, ch <-chan events.Notice) events.Notice {
	t.Helper()
	select {
	case n, ok := <-ch:
		if !ok {
			t.Fatal("the subscription was closed")
		}
		return n
	case <-time.After(20 * time.Second):
		t.Fatal("no notice after 20s")
	}
	return events.Notice{}
}

// nextVersion skips resync notices (Version 0) and returns the next
// notice of an append.
func nextVersion(t *testing.T, ch <-chan events.Notice) events.Notice {
	t.Helper()
	for {
		if n := next(t, ch); n.Version != 0 {
			return n
		}
	}
}

// withAppName gives a connection URL an application_name, to find its
// session in pg_stat_activity.
func withAppName(t *testing.T, connURL, name string) string {
	t.Helper()
	u, err := url.Parse(connURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestListenerFansOutNotices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, pool := newDB(t, 4)
	store := events.NewStore(pool)
	listener := events.NewListener(dbURL, nil)
	a, b := newStreamID(), newStreamID()

	// Subscribing before Run is fine: the first connection sends a resync.
	subA, cancelA := listener.Subscribe(strings.ToUpper(a))
	defer cancelA()
	all, cancelAll := listener.SubscribeAll()
	defer cancelAll()
	// A subscriber that never reads must not hold the others up.
	_, cancelIdle := listener.Subscribe(a)
	defer cancelIdle()

	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- listener.Run(runCtx) }()
	if n := next(t, subA); n != (events.Notice{StreamID: a}) {
		t.Fatalf("first notice %+v, want a resync of %s", n, a)
	}
	if n := next(t, all); n.Version != 0 {
		t.Fatalf("first notice of SubscribeAll %+v, want a resync", n)
	}

	if _, err := store.Append(ctx, events.AppendRequest{StreamID: b, Events: []events.NewEvent{event("b", 1)}}); err != nil {
		t.Fatal(err)
	}
	for v := int64(0); v < 40; v++ {
		if _, err := store.Append(ctx, events.AppendRequest{StreamID: a, ExpectedVersion: v, Events: []events.NewEvent{event("a", int(v))}}); err != nil {
			t.Fatal(err)
		}
		// Reading the store after each notice, a subscriber always
		// catches up; here, the notices name the versions in order.
		n := nextVersion(t, subA)
		for n.Version < v+1 {
			n = nextVersion(t, subA)
		}
		if n.StreamID != a || n.Version != v+1 {
			t.Fatalf("notice %+v after appending version %d of %s", n, v+1, a)
		}
	}
	// SubscribeAll saw both streams.
	seen := map[string]bool{}
	for len(seen) < 2 {
		seen[nextVersion(t, all).StreamID] = true
	}
	if !seen[a] || !seen[b] {
		t.Fatalf("SubscribeAll saw %v", seen)
	}

	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Every subscription is closed; later ones come closed.
	for _, ch := range []<-chan events.Notice{subA, all} {
		for range ch {
		}
	}
	late, cancelLate := listener.Subscribe(a)
	cancelLate()
	if _, ok := <-late; ok {
		t.Fatal("a subscription after Run returned is open")
	}
	if err := listener.Run(ctx); err == nil {
		t.Fatal("a second Run was accepted")
	}
}

func TestListenerReconnects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, pool := newDB(t, 4)
	store := events.NewStore(pool)
	const app = "azuld-listener-test"
	listener := events.NewListener(withAppName(t, dbURL, app), nil)
	id := newStreamID()
	sub, cancel := listener.Subscribe(id)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = listener.Run(runCtx) }()
	if n := next(t, sub); n.Version != 0 {
		t.Fatalf("first notice %+v, want a resync", n)
	}

	// Cut the listener's connection: it comes back and resyncs, since
	// appends made meanwhile were announced to nobody.
	var killed int64
	if err := pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, app).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminated %d listener sessions, %v", killed, err)
	}
	if n := next(t, sub); n.Version != 0 || n.StreamID != id {
		t.Fatalf("after reconnecting: %+v, want a resync of %s", n, id)
	}
	if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: []events.NewEvent{event("a", 1)}}); err != nil {
		t.Fatal(err)
	}
	if n := nextVersion(t, sub); n.Version != 1 {
		t.Fatalf("after reconnecting: %+v", n)
	}
	// A cancelled subscription is closed and gets nothing more.
	cancel()
	cancel()
	for range sub {
	}
}

func TestListenerRefusesABadConnectionString(t *testing.T) {
	t.Parallel()
	l := events.NewListener("postgres://[::1", nil)
	if err := l.Run(context.Background()); err == nil {
		t.Fatal("Run accepted a malformed connection string")
	}
}

func FuzzParseNotification(f *testing.F) {
	f.Add("0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f:12")
	f.Add("0192F5E4-8A4B-7C3D-9E2F-1A2B3C4D5E6F:1,0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6e:7")
	f.Add("0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f:0")
	f.Add("x:1")
	f.Add(":")
	f.Add("")
	f.Add(",")
	f.Add("0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f:-3")
	f.Add("0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f:99999999999999999999")
	f.Fuzz(func(t *testing.T, payload string) {
		notices, err := events.ParseNotification(payload)
		if err != nil {
			if !errors.Is(err, events.ErrInvalid) || notices != nil {
				t.Fatalf("refused %q with %v, returning %v", payload, err, notices)
			}
			return
		}
		// What it accepts reads back the same from its canonical form.
		var entries []string
		for _, n := range notices {
			if n.Version < 1 {
				t.Fatalf("%q: version %d", payload, n.Version)
			}
			entries = append(entries, n.StreamID+":"+strconv.FormatInt(n.Version, 10))
		}
		again, err := events.ParseNotification(strings.Join(entries, ","))
		if err != nil || !slices.Equal(again, notices) {
			t.Fatalf("%q gave %v, which reads back as %v, %v", payload, notices, again, err)
		}
	})
}
