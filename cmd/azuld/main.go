// Command azuld is the Azul play-by-mail server: the HTTP API, and the
// administration subcommands that share its configuration.
//
//	azuld [serve]              run the server (the default)
//	azuld migrate              apply the database migrations
//	azuld projections rebuild  rebuild the read models from the events
//	azuld verify <game|file>   check a game's draws against its seed
//	azuld health               exit 0 when the server is ready (/readyz)
//	azuld dkim keygen          write a DKIM key and print its DNS record
//	azuld version              print the version
//
// With no database configured, azuld runs a private PostgreSQL cluster
// from the PostgreSQL binaries installed on the machine (or, where there
// are none, from binaries it downloads once into its cache), under its
// data folder, and stops it on exit.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	a := &process{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr}
	code := a.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
