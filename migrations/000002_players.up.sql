-- Players and game secrets are not event-sourced: the command path reads
-- and writes them directly.

-- A player's token is shown once at registration; only its SHA-256 is kept.
CREATE TABLE players (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL,
    email      text NOT NULL,
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- The secret seed of each game. Only its SHA-256 commitment is published
-- (in the game's first events) until the game ends and reveals it.
CREATE TABLE game_secrets (
    game_id    uuid PRIMARY KEY,
    seed       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
