package browser

import (
	"sync"
	"testing"
	"time"
)

// parallel runs the test beside the others, at most the queue's size at
// once, and in the order of the tests' declaration (the order in which
// they call parallel, before t.Parallel). go test's own -parallel starts
// the waiting tests in no particular order: a long test could start
// last and hold the whole binary up alone. Every test calls it first.
func parallel(t *testing.T) {
	t.Helper()
	ticket := turns.take()
	t.Parallel()
	asked := time.Now()
	turns.wait(ticket)
	started := time.Now()
	t.Cleanup(func() {
		turns.done()
		// go test's time for the test includes the wait for its turn.
		t.Logf("ran for %s after %s waiting for its turn", time.Since(started).Round(time.Millisecond), started.Sub(asked).Round(time.Millisecond))
	})
}

// queue admits its tickets in the order they were taken, size at a time.
type queue struct {
	mu      sync.Mutex
	changed *sync.Cond
	size    int
	taken   int // tickets handed out
	next    int // the ticket admitted next
	running int
}

func newQueue(size int) *queue {
	q := &queue{size: max(size, 1)}
	q.changed = sync.NewCond(&q.mu)
	return q
}

// take hands out the next ticket.
func (q *queue) take() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.taken++
	return q.taken - 1
}

// wait returns once ticket's turn has come and a place is free.
func (q *queue) wait(ticket int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.next != ticket || q.running >= q.size {
		q.changed.Wait()
	}
	q.next++
	q.running++
	// The next ticket may have a place too.
	q.changed.Broadcast()
}

// done frees a place.
func (q *queue) done() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running--
	q.changed.Broadcast()
}
