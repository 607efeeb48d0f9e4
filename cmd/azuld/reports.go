package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/mail/compose"
)

// reports prints the players' reports of table-talk messages, newest
// first, as a table: when, the game and the message's version, who
// reported (an id; empty once erased), its author, the reason and the
// message. The operators' look at what players flagged; it changes
// nothing.
func (a *process) reports(ctx context.Context, args []string) error {
	cfg, s, err := a.parseSettings("reports", withDatabase, args)
	if err != nil {
		return err
	}
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
	reports, err := newService(pool, log).Reports(ctx, 1000)
	if err != nil {
		return err
	}
	if len(reports) == 0 {
		fmt.Fprintln(a.stdout, "No reports.")
		return nil
	}
	rows := [][]string{{"REPORTED", "GAME", "VERSION", "REPORTER", "AUTHOR", "REASON", "MESSAGE"}}
	for _, r := range reports {
		rows = append(rows, []string{r.At.UTC().Format(time.RFC3339), r.GameID, strconv.FormatInt(r.Version, 10),
			orDash(r.ReporterID), orDash(r.AuthorID), oneLine(r.Reason, 60), oneLine(r.Text, 80)})
	}
	_, err = fmt.Fprint(a.stdout, compose.Table(rows))
	return err
}

// oneLine fits a text into one cell of the table: newlines and tabs as
// spaces, at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return orDash(s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
