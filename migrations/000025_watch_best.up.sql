-- The watch list's order, kept in the games row. It was computed when read
-- (the best rating among each running public game's seats), which read
-- every such game and its seats on each request: 1.9 s with 10,000
-- running games. watch_best is written when a game starts or its seats
-- change (from the ratings of that moment), and by a rebuild after the
-- ratings; the list then reads the first rows of one index.
ALTER TABLE games ADD COLUMN watch_best float8 NOT NULL DEFAULT 0;

UPDATE games g SET watch_best = (SELECT coalesce(max(coalesce(r.ordinal, 0)), 0)::float8 FROM game_seats s
        LEFT JOIN ratings r ON r.ruleset = g.ruleset AND r.players = jsonb_array_length(g.seats)
            AND r.subject = s.player_id::text
        WHERE s.game_id = g.id)
    WHERE g.status = 'active';

DROP INDEX games_watch_idx;
CREATE INDEX games_watch_idx ON games (watch_best DESC, last_move_at DESC, id DESC)
    WHERE status = 'active' AND visibility = 'public';
