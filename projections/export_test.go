package projections

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// RerateRows rates finished games again as Rebuild does (rerate), each
// given as its row and the version of the event that finished it.
func RerateRows(ctx context.Context, tx pgx.Tx, rows []GameRow, versions []int64) error {
	games, err := finishedGames(rows, versions)
	if err != nil {
		return err
	}
	return rerate(ctx, tx, games)
}

// RateEachRow rates the same games the way rerate did before it held the
// ratings in memory: rating_apply for each game in turn, in batches of
// 500, in one transaction (the baseline of BenchmarkRerate).
func RateEachRow(ctx context.Context, tx pgx.Tx, rows []GameRow) error {
	games, err := finishedGames(rows, make([]int64, len(rows)))
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	for i, g := range games {
		queueRating(b, g.enc)
		if b.Len() >= 500 || i == len(games)-1 {
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			b = &pgx.Batch{}
		}
	}
	return nil
}

func finishedGames(rows []GameRow, versions []int64) ([]finishedGame, error) {
	games := make([]finishedGame, len(rows))
	for i, row := range rows {
		enc, err := encodeRow(row)
		if err != nil {
			return nil, err
		}
		games[i] = finishedGame{enc: enc, version: versions[i]}
	}
	return games, nil
}
