-- Play by mail and webhooks: reply tokens, stopped mails, webhooks, the
-- Message-IDs of processed inbound mails, and a delivery log.

-- mail_tokens binds the secret of a Reply-To address (play+<token>@domain)
-- to a seat. Only the SHA-256 of the token is stored; each outgoing mail
-- carries a fresh token (see docs/DECISIONS.md).
CREATE TABLE mail_tokens (
    token_hash bytea PRIMARY KEY,
    game_id    uuid NOT NULL,
    seat       int NOT NULL,
    version    bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_tokens_game ON mail_tokens (game_id, seat);

-- mail_stops: the seats whose player asked for no more mail in a game.
CREATE TABLE mail_stops (
    game_id    uuid NOT NULL,
    seat       int NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE webhooks (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    player_id  uuid NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    url        text NOT NULL,
    secret     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_player ON webhooks (player_id);

-- inbound_mails: Message-IDs of replies already acted on, so a mail
-- delivered twice applies once.
CREATE TABLE inbound_mails (
    message_id  text PRIMARY KEY,
    game_id     uuid,
    seat        int,
    outcome     text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- deliveries: an audit log of every delivery attempt's outcome.
CREATE TABLE deliveries (
    id         bigserial PRIMARY KEY,
    job_id     bigint NOT NULL,
    attempt    int NOT NULL,
    kind       text NOT NULL,
    game_id    uuid,
    seat       int,
    target     text NOT NULL,
    outcome    text NOT NULL,
    detail     text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_game ON deliveries (game_id, created_at);
