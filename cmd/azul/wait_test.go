package main

import (
	"testing"
	"time"
)

// patience bounds every wait of these tests for something that should
// happen soon: only a failing test waits it out, so it is generous for a
// busy machine that runs the tests in parallel.
const patience = time.Minute

// pollEvery is how often a condition is checked again while waited for.
const pollEvery = 10 * time.Millisecond

// waitUntil checks cond until it holds or within has passed, and says
// whether it held.
func waitUntil(within time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
	return true
}

// eventually fails the test unless cond holds within the time given;
// what says what was waited for.
func eventually(t *testing.T, within time.Duration, cond func() bool, what string) {
	t.Helper()
	if !waitUntil(within, cond) {
		t.Fatalf("not within %v: %s", within, what)
	}
}
