package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/play"
)

// TestReplicasShareDeliveries runs two more workers beside the first on
// the same queue: every mail is delivered exactly once.
func TestReplicasShareDeliveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Start(e.NewNotifier(2))
	e.Start(e.NewNotifier(2))
	ana, ben := e.Register("Ana"), e.Register("Ben")
	var games []*play.Game
	for range 4 {
		games = append(games, e.NewPavilion(ana, ben, nil))
	}
	// Play a few moves in each game to make more mail.
	for _, g := range games {
		for range 3 {
			g = e.MoveFirst(g, ana, ben).Game
		}
	}
	var left, jobs int
	eventually.True(t, 30*time.Second, func() bool {
		if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE state <> 'completed'), count(*) FROM river_job WHERE kind = 'azuld_mail'`).Scan(&left, &jobs); err != nil {
			t.Fatal(err)
		}
		return left == 0
	}, "%d of %d mail jobs still pending", eventually.Last(func() any { return left }), eventually.Last(func() any { return jobs }))
	e.Relay.OnceEach(t)
	sent := len(e.Relay.All())
	var skipped int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE outcome = 'skipped'`).Scan(&skipped); err != nil {
		t.Fatal(err)
	}
	if sent+skipped != jobs {
		t.Fatalf("%d jobs, %d mails sent, %d skipped", jobs, sent, skipped)
	}
}

// TestStoppedSeatGetsNoTurnMail: after "stop", a seat's turns enqueue no
// mail for it.
func TestStoppedSeatGetsNoTurnMail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	for seat := range 2 {
		if err := e.N.StopMails(context.Background(), g.ID, seat); err != nil {
			t.Fatal(err)
		}
	}
	cur := g
	for range 4 {
		cur = e.MoveFirst(cur, ana, ben).Game
	}
	var mails int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail' AND (args->>'version')::bigint > $1`, g.Version).Scan(&mails); err != nil {
		t.Fatal(err)
	}
	if mails != 0 {
		t.Fatalf("%d mails enqueued for stopped seats", mails)
	}
}
