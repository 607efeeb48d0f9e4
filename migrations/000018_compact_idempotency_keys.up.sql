-- Idempotency keys, compact. A key was stored as its text scope (which
-- names the game and the player), its text key and its request hash in
-- hex: 479 bytes a key with its index, a third of the database at 80 %
-- of the moves keyed. It is now stored as the SHA-256 of its scope and
-- key (events.KeyID: the scope's length as 4 bytes big-endian, the scope,
-- the key) and the SHA-256 of its request hash (events.RequestDigest):
-- the store only ever looks a key up and compares the hash, never reads
-- them back. Keys are deleted after events.IdempotencyRetention by the
-- daily clean-up, by created_at (no index: the table then holds about a
-- week of keys, and a daily sequential scan costs less than an index
-- entry on every keyed move).
--
-- The events of an append after its first store the meta 0 (see the
-- events package): no change of schema, old events keep their full meta.
CREATE TABLE idempotency_keys_compact (
    id            bytea PRIMARY KEY CHECK (octet_length(id) = 32),
    request_hash  bytea NOT NULL,
    stream_id     uuid NOT NULL,
    first_version bigint NOT NULL,
    last_version  bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

INSERT INTO idempotency_keys_compact (id, request_hash, stream_id, first_version, last_version, created_at)
SELECT sha256(int4send(octet_length(scope)) || convert_to(scope, 'UTF8') || convert_to(key, 'UTF8')),
       sha256(convert_to(request_hash, 'UTF8')),
       stream_id, first_version, last_version, created_at
FROM idempotency_keys;

DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_compact RENAME TO idempotency_keys;
ALTER INDEX idempotency_keys_compact_pkey RENAME TO idempotency_keys_pkey;
ALTER TABLE idempotency_keys RENAME CONSTRAINT idempotency_keys_compact_id_check TO idempotency_keys_id_check;
