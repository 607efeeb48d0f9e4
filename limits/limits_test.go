package limits_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/migrations"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

func newPool(tb testing.TB) *pgxpool.Pool { return pg.NewPool(tb) }

func allow(t *testing.T, l *limits.Limiter, r limits.Rule, key string) limits.Decision {
	t.Helper()
	d, err := l.Allow(context.Background(), r, key)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestExactRuleAllowsItsLimitThenSaysWhen(t *testing.T) {
	t.Parallel()
	l := limits.New(newPool(t), limits.Options{})
	rule := limits.Rule{Name: "register.address", Limit: 3, Period: time.Hour}
	for i := range 3 {
		if d := allow(t, l, rule, "198.51.100.7"); !d.Allowed {
			t.Fatalf("event %d refused: %+v", i+1, d)
		}
	}
	d := allow(t, l, rule, "198.51.100.7")
	if d.Allowed {
		t.Fatal("the fourth event of three an hour was allowed")
	}
	// One event uses 20 minutes; the next is allowed when the first has
	// gone by.
	if d.RetryAfter < 19*time.Minute || d.RetryAfter > 20*time.Minute || d.RetryAfterSeconds() > 1200 {
		t.Errorf("retry after %s (%d s), want about 20 min", d.RetryAfter, d.RetryAfterSeconds())
	}
	// Other keys and other rules are not touched.
	if !allow(t, l, rule, "198.51.100.8").Allowed {
		t.Error("another key was limited")
	}
	if !allow(t, l, limits.Rule{Name: "signin.address", Limit: 3, Period: time.Hour}, "198.51.100.7").Allowed {
		t.Error("another rule's key was limited")
	}
}

// Replicas racing on one key: exactly the limit is allowed, never more.
func TestExactRuleHoldsAcrossReplicasUnderRace(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	replicas := []*limits.Limiter{limits.New(pool, limits.Options{}), limits.New(pool, limits.Options{}), limits.New(pool, limits.Options{})}
	rule := limits.Rule{Name: "token.failures", Limit: 5, Period: time.Hour}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			d, err := replicas[i%3].Allow(context.Background(), rule, "203.0.113.9")
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if n := allowed.Load(); n != 5 {
		t.Fatalf("%d of 30 racing events allowed, want exactly 5", n)
	}
}

// A fast rule decides in memory, and after a synchronisation each replica
// counts what the others allowed.
func TestFastRuleIsSharedBySynchronising(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	a := limits.New(pool, limits.Options{Now: clock})
	b := limits.New(pool, limits.Options{Now: clock})
	rule := limits.Rule{Name: "moves.account", Limit: 10, Period: time.Minute, Fast: true}
	const key = "0199c1d4-7f3e-7000-8000-000000000001"
	for i := range 6 {
		if !allow(t, a, rule, key).Allowed {
			t.Fatalf("replica a refused event %d", i+1)
		}
	}
	for i := range 3 {
		if !allow(t, b, rule, key).Allowed {
			t.Fatalf("replica b refused event %d", i+1)
		}
	}
	ctx := context.Background()
	for _, l := range []*limits.Limiter{a, b, a} {
		if err := l.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// 9 of 10 are used across the two: one more, on either, then none.
	if !allow(t, b, rule, key).Allowed {
		t.Fatal("the tenth event was refused")
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// a has nothing pending, so its sync did not learn of b's tenth: it
	// allows one more, the bounded overshoot of one interval...
	d := allow(t, a, rule, key)
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// ...after which both refuse.
	for name, l := range map[string]*limits.Limiter{"a": a, "b": b} {
		if err := l.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if d := allow(t, l, rule, key); d.Allowed || d.RetryAfter <= 0 {
			t.Errorf("replica %s allowed an event past the shared limit: %+v", name, d)
		}
	}
	if !d.Allowed {
		t.Log("a learnt of b's tenth event before its own check")
	}
	// A minute later the key is free again, and memory is given back.
	now = now.Add(2 * time.Minute)
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Cells() != 0 {
		t.Errorf("%d cells kept after their time passed", a.Cells())
	}
}

func TestFastRuleLimitsOnOneReplicaWithoutTheDatabase(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	l := limits.New(nil, limits.Options{Now: func() time.Time { return now }})
	rule := limits.Rule{Name: "api.account", Limit: 4, Period: time.Second, Fast: true}
	for i := range 4 {
		if !allow(t, l, rule, "k").Allowed {
			t.Fatalf("event %d refused", i+1)
		}
	}
	d := allow(t, l, rule, "k")
	if d.Allowed || d.RetryAfter != 250*time.Millisecond || d.RetryAfterSeconds() != 1 {
		t.Fatalf("fifth event: %+v, want refused for 250 ms", d)
	}
	now = now.Add(250 * time.Millisecond)
	if !allow(t, l, rule, "k").Allowed {
		t.Fatal("refused after the interval")
	}
}

func TestOffAllowsEverythingAndStoresNothing(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	l := limits.New(pool, limits.Options{Off: true})
	rule := limits.Rule{Name: "register.address", Limit: 1, Period: time.Hour}
	for range 5 {
		if !allow(t, l, rule, "x").Allowed {
			t.Fatal("refused while off")
		}
	}
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM rate_limits`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows stored while off (%v)", n, err)
	}
}

// The table holds hashes, never the keys: no address can be read back.
func TestKeysAreNotStored(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	l := limits.New(pool, limits.Options{})
	if !allow(t, l, limits.Rule{Name: "signin.address", Limit: 2, Period: time.Hour}, "ana@example.org").Allowed {
		t.Fatal("refused")
	}
	var found bool
	err := pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM rate_limits WHERE position(convert_to('ana@example.org', 'UTF8') in bucket) > 0)`).Scan(&found)
	if err != nil || found {
		t.Fatalf("the address is in the table (%v)", err)
	}
}

func TestBadRulesAreErrors(t *testing.T) {
	t.Parallel()
	l := limits.New(nil, limits.Options{})
	for _, r := range []limits.Rule{{Name: "", Limit: 1, Period: time.Hour}, {Name: "x", Limit: 0, Period: time.Hour}, {Name: "x", Limit: 10, Period: 5}} {
		if _, err := l.Allow(context.Background(), r, "k"); err == nil {
			t.Errorf("rule %+v accepted", r)
		}
	}
}

// What a check costs: a fast rule in memory against an exact rule's
// round trip, in one run.
func BenchmarkAllow(b *testing.B) {
	pool := newPool(b)
	l := limits.New(pool, limits.Options{})
	for _, fast := range []bool{true, false} {
		rule := limits.Rule{Name: "bench", Limit: 1 << 30, Period: time.Hour, Fast: fast}
		b.Run(fmt.Sprintf("fast=%v", fast), func(b *testing.B) {
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if _, err := l.Allow(ctx, rule, fmt.Sprint(i%1000)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestPeekCountsNothing(t *testing.T) {
	t.Parallel()
	l := limits.New(newPool(t), limits.Options{})
	for _, fast := range []bool{false, true} {
		rule := limits.Rule{Name: fmt.Sprintf("token.failed.%v", fast), Limit: 2, Period: time.Hour, Fast: fast}
		peek := func() limits.Decision {
			d, err := l.Peek(context.Background(), rule, "203.0.113.9")
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		for range 5 {
			if !peek().Allowed {
				t.Fatalf("fast=%v: a peek at an unused key refused", fast)
			}
		}
		allow(t, l, rule, "203.0.113.9")
		if !peek().Allowed {
			t.Fatalf("fast=%v: one event of two refused the next", fast)
		}
		allow(t, l, rule, "203.0.113.9")
		d := peek()
		if d.Allowed || d.RetryAfter < 29*time.Minute || d.RetryAfter > 30*time.Minute {
			t.Fatalf("fast=%v: after two events of two, peek says %+v, want refused for about 30 min", fast, d)
		}
		if allow(t, l, rule, "203.0.113.9").Allowed {
			t.Fatalf("fast=%v: the peeks counted nothing, yet a third event was allowed", fast)
		}
	}
}

// However many distinct keys arrive, a replica holds at most MaxCells of
// them; the keys past it are decided in the database, where their limit
// holds all the same, and the cells of idle keys are dropped at the
// next synchronisation, making room again.
func TestFastRuleCellsStayBoundedUnderManyKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Now()
	clock := func() time.Time { return now }
	l := limits.New(newPool(t), limits.Options{MaxCells: 50, Now: clock})
	rule := limits.Rule{Name: "request.address", Limit: 2, Period: time.Minute, Fast: true}
	for i := range 500 {
		key := fmt.Sprintf("2001:db8::%x", i)
		for n := range 2 {
			if d := allow(t, l, rule, key); !d.Allowed {
				t.Fatalf("key %d: event %d of 2 refused: %+v", i, n+1, d)
			}
		}
		// The third event is refused whether the key has a cell or went
		// to the database.
		if d := allow(t, l, rule, key); d.Allowed {
			t.Fatalf("key %d: the third event of two a minute was allowed", i)
		}
		if p, err := l.Peek(ctx, rule, key); err != nil || p.Allowed {
			t.Fatalf("key %d: peek after the limit: %+v, %v", i, p, err)
		}
		if c := l.Cells(); c > 50 {
			t.Fatalf("after %d keys: %d cells, bound 50", i+1, c)
		}
	}
	if l.Cells() != 50 || l.Overflow() != 450*3 {
		t.Fatalf("%d cells and %d events decided in the database; want 50 and %d", l.Cells(), l.Overflow(), 450*3)
	}
	// A key with a cell is still decided in memory.
	if d := allow(t, l, rule, "2001:db8::0"); d.Allowed {
		t.Fatal("a key holding a cell was allowed past its limit")
	}
	// Once the keys have been idle for their period, a synchronisation
	// drops their cells and new keys are held in memory again.
	if err := l.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	if err := l.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if c := l.Cells(); c != 0 {
		t.Fatalf("%d cells after the keys went idle", c)
	}
	overflow := l.Overflow()
	if !allow(t, l, rule, "2001:db8::ffff").Allowed || l.Cells() != 1 || l.Overflow() != overflow {
		t.Fatalf("a new key after the sweep: %d cells, overflow %d (was %d)", l.Cells(), l.Overflow(), overflow)
	}
}

// The stored keys are salted with the database's own secret: two
// servers (databases) store different keys for the same address, and a
// server's key stays the same after a restart (a new Limiter), so its
// limits hold across it.
func TestKeysAreSaltedPerServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rule := limits.Rule{Name: limits.SigninLinksTo, Limit: 1, Period: time.Hour}
	poolA := newPool(t)
	a := limits.New(poolA, limits.Options{})
	keyA, err := a.Bucket(ctx, rule.Name, "ana@example.org")
	if err != nil {
		t.Fatal(err)
	}
	// What a reader of the table could compute without the salt.
	plain := sha256.Sum256([]byte(rule.Name + "\x00" + "ana@example.org"))
	if bytes.Equal(keyA, plain[:len(keyA)]) {
		t.Fatal("the key is the unsalted hash of the address")
	}
	if !allow(t, a, rule, "ana@example.org").Allowed {
		t.Fatal("refused")
	}
	var stored int
	if err := poolA.QueryRow(ctx, `SELECT count(*) FROM rate_limits WHERE bucket = $1`, keyA).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("%d rows under the key (%v)", stored, err)
	}

	// A restart: a new limiter reads the same salt, and the limit holds.
	restarted := limits.New(poolA, limits.Options{})
	if again, err := restarted.Bucket(ctx, rule.Name, "ana@example.org"); err != nil || !bytes.Equal(again, keyA) {
		t.Fatalf("the key changed across a restart (%v)", err)
	}
	if allow(t, restarted, rule, "ana@example.org").Allowed {
		t.Fatal("the limit did not survive a restart")
	}

	// Another server: a database migrated afresh makes a salt of its own.
	urlB := pg.NewDatabase(t)
	if err := migrations.Down(ctx, urlB); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, urlB); err != nil {
		t.Fatal(err)
	}
	poolB, err := pgxpool.New(ctx, urlB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(poolB.Close)
	keyB, err := limits.New(poolB, limits.Options{}).Bucket(ctx, rule.Name, "ana@example.org")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(keyA, keyB) {
		t.Fatal("two servers store the same key for one address")
	}
}
