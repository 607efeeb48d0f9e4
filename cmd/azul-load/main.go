// Command azul-load measures azuld: `azul-load play` plays many games at
// once against a server through its public API and reports moves per
// second, latency percentiles and errors; `azul-load history` fills a
// database with a history of finished and running games, as azuld itself
// would have written them, to measure how azuld's costs grow with its
// history; `azul-load probe` measures what players read from it (the
// lobby, an inbox, a replay, an export) and how many bytes it takes. See
// docs/LOAD.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/internal/history"
	"github.com/azuld/azuld/internal/loadgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "azul-load:", err)
		os.Exit(1)
	}
}

const usage = `azul-load measures azuld.

  azul-load play [flags]      play games against a server through its API
  azul-load history [flags]   fill a database with finished and running games
  azul-load probe [flags]     measure the reads of a server over its history

Run "azul-load play -h", "azul-load history -h" or "azul-load probe -h"
for the flags.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "play":
		return runPlay(ctx, args[1:], stdout, stderr)
	case "history":
		return runHistory(ctx, args[1:], stdout, stderr)
	case "probe":
		return runProbe(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

const playHelp = `Usage: azul-load play -url URL [-clients N | -rate R] [-duration D] [-moves M] [flags]

Plays games against azuld through its public API, as players would: each
client registers its players once (without an address), creates a game
with every seat its own and plays it to the end, then another. For
the seat to act it reads GET /v1/games/{id}/legal-moves and posts one of
them to POST /v1/games/{id}/moves with If-Match and an Idempotency-Key,
sending the same request again after a 503, 502, 504, 429 or a lost
connection. It prints a progress line to stderr every -interval (moves/s,
p50/p99 of the moves since the last line, errors) and a summary at the
end to stdout (text, or JSON with -json).

The server must let one client register many players and move quickly:
start it with rate limits off and, for a server that mails, without
address verification, e.g.

  AZUL_RATE_LIMITS=off AZUL_VERIFY_ADDRESSES=false azuld serve

(players registered without an address get no mail either way).

-feel measures what a player feels of a move besides its answer, from
the move's 201: "mail" until the next player's turn mail reaches the
load tool's SMTP server (-smtp-listen; start azuld with
AZUL_SMTP_URL=smtp://127.0.0.1:2525?tls=none and AZUL_AWAY_DELAY=0,
since a player who just moved by the API hears of the next turn on the
page, not by mail; the players, then
registered with an address at load.test, wait for their turn mail
before they move, as players by mail do); "bot" until the bot's answer
shows on the game's event stream (with -bot-seat); "web" until the
stream a web page follows brings the move's state.

Flags:
`

func runPlay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("azul-load play", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), playHelp)
		fs.PrintDefaults()
	}
	url := fs.String("url", "http://127.0.0.1:8080", "azuld's base URL")
	clients := fs.Int("clients", 1, "clients playing at once, one game each at a time")
	rate := fs.Float64("rate", 0, "target moves per second of all clients together (0: as fast as the clients go)")
	duration := fs.Duration("duration", 30*time.Second, "how long to play (0: until -moves)")
	moves := fs.Int("moves", 0, "stop after this many acknowledged moves (0: until -duration)")
	ruleset := fs.String("ruleset", "", "the rule sets the games take turns with, comma-separated (default all)")
	players := fs.Int("players", 2, "players (the client's own seats) per game")
	bot := fs.String("bot-seat", "", "add a seat played by the server's bot of this kind (random, greedy)")
	interval := fs.Duration("interval", 5*time.Second, "time between progress lines")
	jsonOut := fs.Bool("json", false, "print the summary as JSON")
	quiet := fs.Bool("quiet", false, "no progress lines")
	seed := fs.Uint64("seed", 1, "varies the moves chosen")
	feel := fs.String("feel", "", "also measure what a player feels, comma-separated: mail (turn mail handed to -smtp-listen), bot (the bot's answer; needs -bot-seat), web (the game's event stream)")
	smtpListen := fs.String("smtp-listen", "127.0.0.1:2525", "address of the SMTP server azuld relays its mails through, for -feel mail (azuld: AZUL_SMTP_URL=smtp://this-address?tls=none)")
	mailWait := fs.Duration("mail-wait", loadgen.DefaultMailWait, "how long a player by mail waits for its turn mail before it moves without it")
	metricsURL := fs.String("metrics-url", "", "base URL where azuld serves /metrics (its AZUL_METRICS_ADDR, e.g. http://127.0.0.1:9090; default: -url)")
	metricsToken := fs.String("metrics-token", os.Getenv("AZUL_METRICS_TOKEN"), "bearer token for /metrics on azuld's public port (default: $AZUL_METRICS_TOKEN)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	kinds, err := loadgen.ParseFeel(*feel)
	if err != nil {
		return err
	}
	cfg := loadgen.Config{
		URL: *url, Clients: *clients, Rate: *rate, Duration: *duration, Moves: *moves,
		Players: *players, BotSeat: *bot, Interval: *interval, Seed: *seed,
		Feel: kinds, SMTPListen: *smtpListen, MailWait: *mailWait, MetricsURL: *metricsURL, MetricsToken: *metricsToken,
	}
	if *ruleset != "" {
		cfg.Rulesets = strings.Split(*ruleset, ",")
	}
	if !*quiet {
		cfg.Progress = stderr
	}
	sum, err := loadgen.Run(ctx, cfg)
	if err != nil {
		return err
	}
	return printResult(stdout, *jsonOut, sum, sum.Text())
}

const historyHelp = `Usage: azul-load history -database URL -finished N [-running M] [flags]

Fills a database migrated by azuld (azuld migrate) with N finished and M
running games of every rule set and option, played by the engine's bots:
real secret seeds and their commitments, the events, metadata, secrets,
idempotency keys and read models azuld writes, written with COPY. Every
game verifies (azuld verify, GET /v1/games/{id}/verify), and each running
game waits for one of its players. The players are new ones, with a
verified address and no usable token.

Connect as the schema's owner (AZUL_MIGRATE_DATABASE_URL) or azuld's own
role. Stop azuld first: its follower of the log would otherwise mail the
history's old turns; the generator marks the history as followed when
it is done, and refuses a database whose follower has not caught up.

Flags:
`

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("azul-load history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), historyHelp)
		fs.PrintDefaults()
	}
	dbURL := fs.String("database", os.Getenv("AZUL_MIGRATE_DATABASE_URL"), "PostgreSQL URL (default $AZUL_MIGRATE_DATABASE_URL)")
	finished := fs.Int("finished", 1000, "finished games")
	running := fs.Int("running", 0, "running games")
	players := fs.Int("players", 0, "players the seats are drawn from (0: one per 20 games, at least 8)")
	mover := fs.String("mover", bots.Greedy, "the bot that chooses the players' moves: greedy or random")
	botSeats := fs.Float64("bot-seats", 0.1, "share of seats (after the first) held by a bot")
	joined := fs.Float64("joined", 0.25, "share of games created with a free seat a second player joins")
	keyed := fs.Float64("keyed", 0.8, "share of the players' moves sent with an Idempotency-Key")
	span := fs.Duration("span", 2*365*24*time.Hour, "how far back the finished games go")
	gap := fs.Duration("gap", 30*time.Minute, "mean time between a player's moves")
	batch := fs.Int("batch", 2000, "games per group of transactions")
	workers := fs.Int("workers", 0, "games played at once (0: one per CPU)")
	seed := fs.Uint64("seed", 1, "fixes the rule sets, seats and times (the games' seeds are always secret and random)")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	quiet := fs.Bool("quiet", false, "no progress lines")
	cpuProfile := fs.String("cpuprofile", "", "write the generator's CPU profile to this file (go tool pprof reads it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if *dbURL == "" {
		return errors.New("no database: give -database or set AZUL_MIGRATE_DATABASE_URL")
	}
	pool, err := pgxpool.New(ctx, *dbURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer pool.Close()
	opts := history.Options{
		Finished: *finished, Running: *running, Players: *players, Mover: *mover,
		BotSeats: *botSeats, Joined: *joined, Keyed: *keyed, Span: *span, Gap: *gap,
		Batch: *batch, Workers: *workers, Seed: *seed,
	}
	if !*quiet {
		opts.Progress = func(s history.Stats) {
			fmt.Fprintf(stderr, "%6.1fs  games %8d  %8.1f/s  events %10d  playing %.1fs  writing %.1fs\n",
				s.Elapsed.Seconds(), s.Games, s.GamesPerSecond(), s.Events, s.Playing.Seconds(), s.Writing.Seconds())
		}
	}
	stats, err := history.Generate(ctx, pool, opts)
	if err != nil {
		return err
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(historyJSON{
			Games: stats.Games, Finished: stats.Finished, Running: stats.Running, Players: stats.Players,
			Events: stats.Events, Appends: stats.Appends, Seconds: stats.Elapsed.Seconds(), GamesPerSec: stats.GamesPerSecond(),
			PlayingSeconds: stats.Playing.Seconds(), WritingSeconds: stats.Writing.Seconds(),
		})
	}
	_, err = fmt.Fprintf(stdout, "%d games (%d finished, %d running), %d events in %d appends, %d players, in %.1f s: %.1f games/s\n",
		stats.Games, stats.Finished, stats.Running, stats.Events, stats.Appends, stats.Players, stats.Elapsed.Seconds(), stats.GamesPerSecond())
	return err
}

// historyJSON is the result of `azul-load history -json`.
type historyJSON struct {
	Games       int     `json:"games"`
	Finished    int     `json:"finished"`
	Running     int     `json:"running"`
	Players     int     `json:"players"`
	Events      int64   `json:"events"`
	Appends     int64   `json:"appends"`
	Seconds     float64 `json:"seconds"`
	GamesPerSec float64 `json:"games_per_second"`
	// PlayingSeconds is the time spent playing the games in memory,
	// WritingSeconds writing them (the two overlap).
	PlayingSeconds float64 `json:"playing_seconds"`
	WritingSeconds float64 `json:"writing_seconds"`
}

const probeHelp = `Usage: azul-load probe -url URL -database URL [-samples N] [-analysis] [flags]

Measures, one request at a time, what players read from azuld over the
history of its database: the lobby (open games), the watch list, the
inbox and game list of the player with the most turns waiting, the
first page of finished games, the state of running games (each asked
for once, so azuld loads and folds it rather than answer from its
cache), the replay of finished games at a random version, their export,
a leaderboard, players' profiles, and with -analysis the request that
queues a finished game's analysis (measured last: the jobs it queues
then run on the server). It prints
each kind's latency percentiles and the bytes the log takes (events:
rows, indexes, TOAST; the whole database per game).

The database is read to draw the games, and one player is given a new
API token (named "azul-load probe") to read their inbox: connect as the
schema's owner or azuld's role, and use a database made for measuring
(azul-load history), not a live server's.

Flags:
`

func runProbe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("azul-load probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), probeHelp)
		fs.PrintDefaults()
	}
	url := fs.String("url", "http://127.0.0.1:8080", "azuld's base URL")
	dbURL := fs.String("database", os.Getenv("AZUL_MIGRATE_DATABASE_URL"), "the PostgreSQL URL of the database azuld serves (default $AZUL_MIGRATE_DATABASE_URL)")
	samples := fs.Int("samples", 200, "requests of each kind")
	analysis := fs.Bool("analysis", false, "also measure queueing analyses (runs analysis jobs on the server)")
	seed := fs.Uint64("seed", 1, "fixes which games are drawn")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	quiet := fs.Bool("quiet", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *dbURL == "" {
		return errors.New("no database: give -database or set AZUL_MIGRATE_DATABASE_URL")
	}
	pool, err := pgxpool.New(ctx, *dbURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer pool.Close()
	cfg := loadgen.ProbeConfig{URL: *url, DB: pool, Samples: *samples, Analysis: *analysis, Seed: *seed}
	if !*quiet {
		cfg.Progress = stderr
	}
	sum, err := loadgen.Probe(ctx, cfg)
	if err != nil {
		return err
	}
	return printResult(stdout, *jsonOut, sum, sum.Text())
}

// printResult prints a command's result: v as indented JSON, or text.
func printResult(stdout io.Writer, asJSON bool, v any, text string) error {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprint(stdout, text)
	return err
}
