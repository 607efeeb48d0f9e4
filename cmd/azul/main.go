// Command azul is the terminal client of azuld: create, follow, play,
// replay and verify games over the REST API.
//
// Exit codes: 0 success, 1 any other failure (the server refused the
// request for another reason, a file could not be read), 2 usage error,
// 3 move or answer refused by the game, 4 network failure, 5 not signed
// in or not allowed.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv)
	stop()
	os.Exit(code)
}
