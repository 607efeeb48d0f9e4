-- The search bot's analysis of a finished game's positions, computed by a
-- job worker on request and kept: a finished game never changes, so an
-- analysis stays right. result is NULL while the job runs.
CREATE TABLE game_analyses (
    game_id     uuid        NOT NULL,
    version     bigint      NOT NULL CHECK (version >= 1),
    requested_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    result      jsonb,
    PRIMARY KEY (game_id, version)
);
