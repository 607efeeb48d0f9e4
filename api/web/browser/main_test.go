package browser

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
)

// The binary's shared harnesses: pg gives every test a fresh, migrated
// database; chrome is the one Chromium every test opens its tabs in;
// turns lets the tests run beside each other, a few at a time.
var (
	pg     *pgtest.Harness
	chrome = &chromium{}
	turns  *queue
)

// defaultParallel is how many tests run at once when -parallel is not
// given. A test spends much of its time waiting for a page, a stream or
// a job worker, so a little more than the machine's two cores keep them
// busy; many more only make every wait longer.
const defaultParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	turns = newQueue(takeParallel(defaultParallel))
	code := pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg)
	chrome.close()
	os.Exit(code)
}

// takeParallel returns how many tests may run at once: -test.parallel
// when the command line gives it, else n. The queue bounds them from
// then on (see parallel); -test.parallel itself is raised so that go
// test lets every test through to the queue: were it to hold back the
// test whose turn it is, the others would wait for it for ever.
func takeParallel(n int) int {
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			if v, err := strconv.Atoi(f.Value.String()); err == nil && v > 0 {
				n = v
			}
		}
	})
	if err := flag.Set("test.parallel", "1000"); err != nil {
		fmt.Fprintln(os.Stderr, "browser tests: -test.parallel:", err)
	}
	return n
}
