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

-- The servers before 000018 cannot read the marker 0 that the events of
-- an append after its first hold: each gets its append's meta back (the
-- nearest event before it with a full meta), as those servers wrote it.
ALTER TABLE events DISABLE TRIGGER events_immutable_rows;
UPDATE events e
SET meta = (SELECT h.meta FROM events h
            WHERE h.stream_id = e.stream_id AND h.version < e.version AND h.meta::text <> '0'
            ORDER BY h.version DESC LIMIT 1)
WHERE e.meta::text = '0';
ALTER TABLE events ENABLE TRIGGER events_immutable_rows;
