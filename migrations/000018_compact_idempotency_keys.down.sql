-- The text of the keys is not kept by the compact form, so the keys are
-- not restored: going down forgets them, as their expiry would (a retry
-- is then a new request).
DROP TABLE IF EXISTS idempotency_keys;
CREATE TABLE idempotency_keys (
    scope         text NOT NULL,
    key           text NOT NULL,
    request_hash  text NOT NULL,
    stream_id     uuid NOT NULL,
    first_version bigint NOT NULL,
    last_version  bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);
