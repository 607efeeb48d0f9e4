// Package eventually lets tests wait for something that happens in
// another goroutine or process (a follower catching up, a mail arriving,
// a node coming back) without a fixed sleep: the condition is polled,
// first at once and then with a short backoff, until it holds or the
// time allowed runs out.
//
// A fixed sleep is either too short on a busy machine (the test flakes)
// or too long everywhere else (the suite crawls); polling returns as soon
// as the condition holds, and the limit only matters when it never does.
package eventually

import (
	"fmt"
	"testing"
	"time"
)

// The backoff between polls: the first retries are quick because most
// conditions hold within milliseconds; past maxPause the polling would
// only load a machine the tests share.
const (
	firstPause = time.Millisecond
	maxPause   = 25 * time.Millisecond
)

// True waits until cond returns true, for at most within. Otherwise the
// test fails (t.Fatalf) with the message, after how long it waited.
// cond is called from the test's goroutine; it is always called at least
// once, and once more after the time is up, so a slow machine that
// oversleeps the last pause does not fail a condition that holds.
func True(t testing.TB, within time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	if poll(within, cond) {
		return
	}
	t.Fatalf("%s (waited %v)", fmt.Sprintf(format, args...), within)
}

// NoError waits until f returns nil, for at most within. Otherwise the
// test fails (t.Fatalf) with f's last error.
func NoError(t testing.TB, within time.Duration, f func() error) {
	t.Helper()
	var last error
	if poll(within, func() bool { last = f(); return last == nil }) {
		return
	}
	t.Fatalf("still failing after %v: %v", within, last)
}

// Within polls cond as True does, for at most within, and reports
// whether it held; it fails nothing. It is for a caller that reports the
// failure itself, with the detail of what it then finds (and perhaps
// t.Errorf, to check the rest), and for a wait whose condition may
// rightly not come (a step that is skipped when it does not). Unlike
// True, it may be called from any goroutine: cond runs on the caller's.
func Within(within time.Duration, cond func() bool) bool {
	return poll(within, cond)
}

// Last stands for an argument of True's message that is read only when
// the wait fails: the message can then show what the last poll saw (the
// version a game reached, the mails that came) rather than what held
// before the wait began. f is called from the test's goroutine, after the
// last poll; the verb and flags in the message apply to its value.
func Last(f func() any) fmt.Formatter { return last(f) }

type last func() any

func (f last) Format(s fmt.State, verb rune) {
	fmt.Fprintf(s, fmt.FormatString(s, verb), f())
}

// poll reports whether ok returned true before the deadline or at the
// last call after it.
func poll(within time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(within)
	pause := firstPause
	for {
		if ok() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, maxPause)
	}
}
