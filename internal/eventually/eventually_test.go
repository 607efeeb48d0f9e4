package eventually

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recorder stands for a test: it keeps the failure instead of ending the
// goroutine, so that a failing wait can be checked.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
}

func TestTrueReturnsAtOnceWhenTheConditionHolds(t *testing.T) {
	r := &recorder{}
	calls := 0
	start := time.Now()
	True(r, time.Minute, func() bool { calls++; return true }, "never")
	if r.failure != "" || calls != 1 {
		t.Errorf("failure %q after %d calls", r.failure, calls)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %v", took)
	}
}

func TestTrueWaitsForAConditionThatComesTrue(t *testing.T) {
	r := &recorder{}
	var ready atomic.Bool
	time.AfterFunc(30*time.Millisecond, func() { ready.Store(true) })
	start := time.Now()
	True(r, 10*time.Second, ready.Load, "never ready")
	if r.failure != "" {
		t.Fatalf("failed: %s", r.failure)
	}
	// The backoff is short: the wait ends soon after the condition holds,
	// not at the limit.
	if took := time.Since(start); took < 30*time.Millisecond || took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}

func TestTrueFailsWithTheMessageAfterTheLimit(t *testing.T) {
	r := &recorder{}
	calls := 0
	start := time.Now()
	True(r, 50*time.Millisecond, func() bool { calls++; return false }, "game %d never ended", 7)
	took := time.Since(start)
	if !strings.HasPrefix(r.failure, "game 7 never ended") || !strings.Contains(r.failure, "50ms") {
		t.Errorf("failure %q", r.failure)
	}
	if took < 50*time.Millisecond {
		t.Errorf("gave up after %v", took)
	}
	// Polled more than once: at least at the start and once the time was
	// up (a busy machine may oversleep every pause in between).
	if calls < 2 {
		t.Errorf("%d calls", calls)
	}
}

func TestTrueChecksOnceMoreAtTheLimit(t *testing.T) {
	r := &recorder{}
	start := time.Now()
	// True only once the limit has passed: the last call sees it.
	True(r, 20*time.Millisecond, func() bool { return time.Since(start) >= 20*time.Millisecond }, "never")
	if r.failure != "" {
		t.Errorf("failed: %s", r.failure)
	}
}

func TestNoErrorReturnsOnceFSucceeds(t *testing.T) {
	r := &recorder{}
	calls := 0
	NoError(r, 10*time.Second, func() error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if r.failure != "" || calls != 3 {
		t.Errorf("failure %q after %d calls", r.failure, calls)
	}
}

func TestNoErrorFailsWithTheLastError(t *testing.T) {
	r := &recorder{}
	calls := 0
	NoError(r, 30*time.Millisecond, func() error {
		calls++
		return fmt.Errorf("attempt %d refused", calls)
	})
	if want := fmt.Sprintf("attempt %d refused", calls); !strings.HasSuffix(r.failure, want) || !strings.Contains(r.failure, "30ms") {
		t.Errorf("failure %q, want it to end with %q", r.failure, want)
	}
}

func TestWithinReportsAConditionThatComesTrue(t *testing.T) {
	var ready atomic.Bool
	time.AfterFunc(30*time.Millisecond, func() { ready.Store(true) })
	start := time.Now()
	if !Within(10*time.Second, ready.Load) {
		t.Fatal("the condition came true, Within says it did not")
	}
	if took := time.Since(start); took < 30*time.Millisecond || took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}

func TestWithinReportsAConditionThatNeverHolds(t *testing.T) {
	calls := 0
	start := time.Now()
	if Within(50*time.Millisecond, func() bool { calls++; return false }) {
		t.Fatal("the condition never held, Within says it did")
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("gave up after %v", took)
	}
	// As True: polled at the start and once the time was up.
	if calls < 2 {
		t.Errorf("%d calls", calls)
	}
}

func TestLastShowsWhatTheLastPollSaw(t *testing.T) {
	r := &recorder{}
	version, toAct := 3, []int{0}
	True(r, 30*time.Millisecond, func() bool { version++; toAct = []int{version % 2}; return false },
		"version %d, to act %v, %s at %5.1f", Last(func() any { return version }), Last(func() any { return toAct }),
		Last(func() any { return "ana" }), Last(func() any { return 2.5 }))
	// Polled at least twice (at once and after the limit), and the message
	// shows the values after the last poll.
	want := fmt.Sprintf("version %d, to act [%d], ana at   2.5", version, version%2)
	if version < 5 || !strings.HasPrefix(r.failure, want) {
		t.Errorf("failure %q, want it to start with %q", r.failure, want)
	}
	// Outside a failing wait it formats as its value would.
	if got := fmt.Sprintf("%+v %q", Last(func() any { return struct{ N int }{7} }), Last(func() any { return "x" })); got != `{N:7} "x"` {
		t.Errorf("formatted %s", got)
	}
}
