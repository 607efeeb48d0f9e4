-- Read models, derived from the events and written in the same
-- transaction as them. `azuld projections rebuild` truncates and refills
-- them from the events at any time.

-- The games list, newest move first, with keyset pagination on
-- (last_move_at, id).
CREATE TABLE games (
    id           uuid PRIMARY KEY,
    ruleset      text NOT NULL,
    options      jsonb NOT NULL,
    status       text NOT NULL CHECK (status IN ('open', 'active', 'finished')),
    version      bigint NOT NULL,
    to_act       integer[] NOT NULL,
    seats        jsonb NOT NULL,
    created_by   uuid,
    created_at   timestamptz NOT NULL,
    last_move_at timestamptz NOT NULL,
    deadline     timestamptz,
    final        jsonb
);
CREATE INDEX games_by_last_move_idx ON games (last_move_at DESC, id DESC);
CREATE INDEX games_by_status_idx ON games (status, last_move_at DESC, id DESC);
CREATE INDEX games_by_ruleset_idx ON games (ruleset, last_move_at DESC, id DESC);

-- One row per seat, to find a player's games.
CREATE TABLE game_seats (
    game_id   uuid NOT NULL,
    seat      integer NOT NULL,
    player_id uuid,
    bot       text NOT NULL,
    name      text NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_seats_by_player_idx ON game_seats (player_id, game_id) WHERE player_id IS NOT NULL;

-- The seats each player must act on now. since is when the seat's turn
-- began (the row is kept while the seat stays to act).
CREATE TABLE turn_inbox (
    player_id uuid NOT NULL,
    game_id   uuid NOT NULL,
    seat      integer NOT NULL,
    since     timestamptz NOT NULL,
    deadline  timestamptz,
    PRIMARY KEY (player_id, game_id, seat)
);
CREATE INDEX turn_inbox_by_game_idx ON turn_inbox (game_id);

-- Final scores and ranks of finished games, per seat.
CREATE TABLE results (
    game_id     uuid NOT NULL,
    seat        integer NOT NULL,
    player_id   uuid,
    score       integer NOT NULL,
    rank        integer NOT NULL,
    finished_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX results_by_player_idx ON results (player_id, finished_at DESC) WHERE player_id IS NOT NULL;
