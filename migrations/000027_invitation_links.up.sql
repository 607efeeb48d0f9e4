-- Invitation links: the link (/invite/<token>) that lets whoever holds it
-- take one of a game's free seats that are kept for nobody.
--
-- invitation_key: the server's one key (32 random bytes, written by the
-- first server that needs it). A game's token is the HMAC-SHA256 of the
-- game's id under this key, so the players seated at the game can be shown
-- the same link every time although no token is stored.
CREATE TABLE invitation_key (
    id  boolean PRIMARY KEY DEFAULT true CHECK (id),
    key bytea NOT NULL CHECK (length(key) = 32)
);

-- invitation_links: the SHA-256 of each game's token, which a link is
-- looked up by. No foreign key to games: the read models may be rebuilt.
CREATE TABLE invitation_links (
    token_hash bytea PRIMARY KEY,
    game_id    uuid NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);
