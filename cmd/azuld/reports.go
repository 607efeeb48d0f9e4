package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
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
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REPORTED\tGAME\tVERSION\tREPORTER\tAUTHOR\tREASON\tMESSAGE")
	for _, r := range reports {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.At.UTC().Format(time.RFC3339), r.GameID, r.Version,
			orDash(r.ReporterID), orDash(r.AuthorID), oneLine(r.Reason, 60), oneLine(r.Text, 80))
	}
	return tw.Flush()
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
