-- Table talk (game.message events): what is not a fact of the game lives
-- beside the log. No foreign key to games: the read models may be rebuilt
-- from the log, these rows may not.

-- A player's choice not to be sent a game's messages (no mail, no unread
-- mark). A preference of the player, erased with the account.
CREATE TABLE game_mutes (
    game_id   uuid NOT NULL,
    player_id uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    muted_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, player_id)
);

-- Players' reports of other players' messages, for the operators (azuld
-- reports). One report per reporter and message. The message itself is
-- the event at (game_id, version); author_id repeats its author's id from
-- the event's meta. An erased reporter's reports stay, without them.
CREATE TABLE message_reports (
    game_id     uuid NOT NULL,
    version     bigint NOT NULL CHECK (version >= 1),
    reporter_id uuid REFERENCES players (id) ON DELETE SET NULL,
    author_id   text NOT NULL,
    reason      text NOT NULL CHECK (char_length(reason) <= 500),
    reported_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (game_id, version, reporter_id)
);
CREATE INDEX message_reports_newest_idx ON message_reports (reported_at DESC);
