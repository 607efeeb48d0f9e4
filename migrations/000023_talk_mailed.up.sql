-- Table talk by mail: per game and player, the version up to which the
-- game's messages were mailed to them (in a message mail or a turn mail),
-- and when the last message mail left, which holds the next one back for
-- the collection interval (an hour). A player's delivery state, erased
-- with the account; no foreign key to games (read models may be rebuilt).
CREATE TABLE talk_mailed (
    game_id         uuid NOT NULL,
    player_id       uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    version         bigint NOT NULL DEFAULT 0 CHECK (version >= 0),
    last_message_at timestamptz,
    PRIMARY KEY (game_id, player_id)
);
