-- Consent before mail: an address is mailed only once its owner verified
-- it, and bounces and complaints coming back to a delivery's own return
-- path (VERP) stop the mails to it.

-- email_verified: the owner followed a link mailed to the address. The
-- players of an upgraded server were already being mailed by the
-- operator's choice, so they start verified; new players start unverified
-- (the default changes after the existing rows are filled).
-- email_undeliverable_at: a hard bounce or a complaint came back; nothing
-- but sign-in links go there until the owner verifies the address again.
-- email_soft_bounces counts temporary failures since
-- email_soft_bounce_since (a window: enough of them within it make the
-- address undeliverable).
-- verify_mails / verify_mails_since: the link mails sent to an address
-- that is unverified or undeliverable in the current day, so that such an
-- address gets the verification mail and at most one more a day.
ALTER TABLE players
    ADD COLUMN email_verified boolean NOT NULL DEFAULT true,
    ADD COLUMN email_undeliverable_at timestamptz,
    ADD COLUMN email_undeliverable_reason text NOT NULL DEFAULT '',
    ADD COLUMN email_soft_bounces int NOT NULL DEFAULT 0,
    ADD COLUMN email_soft_bounce_since timestamptz,
    ADD COLUMN verify_mails int NOT NULL DEFAULT 0,
    ADD COLUMN verify_mails_since timestamptz;
ALTER TABLE players ALTER COLUMN email_verified SET DEFAULT false;

-- bounce_tokens: the token of each delivery's return path
-- (bounce+<token>@<mail domain>) and the player it was sent to. Only the
-- SHA-256 of the token is kept; the address is not (the player's row has
-- it), so erasing a player erases this too.
CREATE TABLE bounce_tokens (
    token_hash bytea PRIMARY KEY,
    player_id  uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bounce_tokens_created_at ON bounce_tokens (created_at);

-- undeliverable_notices: the games whose other seats were told that a
-- player may not be hearing of the game, so they are told once. Cleared
-- for a player whose address is verified again.
CREATE TABLE undeliverable_notices (
    game_id    uuid NOT NULL,
    player_id  uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, player_id)
);
CREATE INDEX undeliverable_notices_player ON undeliverable_notices (player_id);
