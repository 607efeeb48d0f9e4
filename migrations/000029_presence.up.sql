-- Presence at the table: who has a game's page (its live stream) open, one
-- row per open stream, refreshed by the stream while it lasts and marked
-- closed when it ends. The turn mail of a player who is at the table, or
-- left it only moments ago, waits (see notify's turn mails). Ids and times
-- only; unlogged, since it is worth nothing after a crash (a mail that
-- should have waited is sent); erased with the account.
CREATE UNLOGGED TABLE presence (
    game_id   uuid NOT NULL,
    player_id uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    stream_id text NOT NULL,
    seen_at   timestamptz NOT NULL,
    open      boolean NOT NULL DEFAULT true,
    PRIMARY KEY (game_id, player_id, stream_id)
);
CREATE INDEX presence_seen_at ON presence (seen_at);
