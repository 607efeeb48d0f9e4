package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/play"
)

// errVerifyFailed makes `azuld verify` exit with 1 after printing the
// mismatch.
var errVerifyFailed = errors.New("the verification failed")

// verify re-derives every draw of a game from its seed: a game of the
// configured database (by id), or an exported log (a file from
// GET /v1/games/{id}/export, no database needed).
func (a *process) verify(ctx context.Context, args []string) error {
	target := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		target, args = args[0], args[1:]
	}
	all := false
	args = slices.DeleteFunc(slices.Clone(args), func(arg string) bool {
		if arg == "--all" || arg == "-all" {
			all = true
			return true
		}
		return false
	})
	cfg, s, err := a.parseSettings("verify", withDatabase, args)
	if err != nil {
		return err
	}
	if all {
		if target != "" {
			fmt.Fprint(a.stderr, "azuld verify: give a game, a file or --all, not both\n")
			return errUsage
		}
		return a.verifyAll(ctx, cfg, s)
	}
	if target == "" {
		fmt.Fprint(a.stderr, "azuld verify: give a game id, an exported file or --all (see --help)\n")
		return errUsage
	}
	var report *play.Verification
	if _, statErr := os.Stat(target); statErr == nil || !isUUID(target) {
		report, err = verifyFile(target)
	} else {
		report, err = a.verifyStored(ctx, cfg, s, target)
	}
	if err != nil {
		return err
	}
	return a.printVerification(report)
}

func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// verifyFile checks an exported log.
func verifyFile(path string) (*play.Verification, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open the exported game: %w", err)
	}
	defer f.Close()
	recs, err := play.ReadRecords(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return play.VerifyRecords(rulesets.All(), recs), nil
}

// verifyStored checks a game of the configured database.
func (a *process) verifyStored(ctx context.Context, cfg *config, s *settings, id string) (*play.Verification, error) {
	log, err := a.newLogger(cfg.LogLevel)
	if err != nil {
		return nil, err
	}
	log.Debug("configuration", s.printable()...)
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	defer db.close(log)
	pool, err := connect(ctx, db, cfg)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	return newService(pool, log).Verify(ctx, id)
}

// verifyPage is how many game ids verifyAll reads at a time: it holds
// one page of ids and one game's events, whatever the database's size.
const verifyPage = 200

// verifyAll checks every game of the configured database, one at a time,
// printing each failure, then a summary line; any failure makes the exit
// status 1.
func (a *process) verifyAll(ctx context.Context, cfg *config, s *settings) error {
	log, err := a.newLogger(cfg.LogLevel)
	if err != nil {
		return err
	}
	log.Debug("configuration", s.printable()...)
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.close(log)
	pool, err := connect(ctx, db, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	svc := newService(pool, log)
	checked, committed := 0, 0
	var failed []string
	after := uuid.Nil.String()
	for {
		ids, err := gamesAfter(ctx, pool, after, verifyPage)
		if err != nil {
			return err
		}
		for _, id := range ids {
			v, err := svc.Verify(ctx, id)
			if err != nil {
				return fmt.Errorf("verify game %s: %w", id, err)
			}
			checked++
			switch v.Result {
			case play.VerifyCommitted:
				committed++
			case play.VerifyPass:
			default:
				failed = append(failed, id)
				fmt.Fprintf(a.stdout, "FAIL %s at version %d: %s\n", id, v.Mismatch.Version, v.Mismatch.Reason)
			}
		}
		if len(ids) < verifyPage {
			break
		}
		after = ids[len(ids)-1]
	}
	if len(failed) > 0 {
		fmt.Fprintf(a.stdout, "FAIL: %d games checked, %d failed: %s\n", checked, len(failed), strings.Join(failed, " "))
		return errVerifyFailed
	}
	fmt.Fprintf(a.stdout, "PASS: %d games checked (%d still secret: commitment and fold only), none failed\n", checked, committed)
	return nil
}

// gamesAfter lists up to limit game ids after the id after, in id order:
// the streams that begin with a game's creation.
func gamesAfter(ctx context.Context, pool *pgxpool.Pool, after string, limit int) ([]string, error) {
	rows, err := pool.Query(ctx, `SELECT stream_id::text FROM events
		WHERE version = 1 AND type = $1 AND stream_id > $2::uuid ORDER BY stream_id LIMIT $3`, play.EvGameCreated, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list the games: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list the games: %w", err)
	}
	return ids, nil
}

// printVerification writes the report for people, then the mismatch.
func (a *process) printVerification(v *play.Verification) error {
	w := a.stdout
	fmt.Fprintf(w, "game             %s\n", v.GameID)
	fmt.Fprintf(w, "seed commitment  %s\n", v.SeedCommitment)
	if v.Seed != "" {
		fmt.Fprintf(w, "seed             %s\n", v.Seed)
	}
	fmt.Fprintf(w, "events           %d (commands replayed %d, random reveals re-derived %d)\n", v.Events, v.Commands, v.Reveals)
	switch v.Result {
	case play.VerifyPass:
		fmt.Fprintln(w, "result           PASS: every event is what the seed and the recorded commands derive")
	case play.VerifyCommitted:
		fmt.Fprintln(w, "result           COMMITTED: the seed is still secret; the log folds; check again after the game ends")
	default:
		fmt.Fprintf(w, "result           FAIL at version %d: %s\n", v.Mismatch.Version, v.Mismatch.Reason)
		if len(v.Mismatch.Expected) > 0 {
			fmt.Fprintf(w, "expected         %s\n", compactJSON(v.Mismatch.Expected))
		}
		if len(v.Mismatch.Stored) > 0 {
			fmt.Fprintf(w, "stored           %s\n", compactJSON(v.Mismatch.Stored))
		}
		return errVerifyFailed
	}
	return nil
}

func compactJSON(raw json.RawMessage) string {
	b, err := json.Marshal(raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}
