-- rate_limits: the shared state of the rate limiter (package limits), one
-- row per rule and key: the theoretical arrival time of the generic cell
-- rate algorithm. bucket is a hash of the rule's name and the key (a client
-- address, an email address, an account id), so no personal data is kept
-- here; rows whose time has passed are deleted.
--
-- UNLOGGED: limits need not survive a crash of the database (they start
-- afresh, as they would after their period), and a write-ahead log record
-- per request would cost more than the limit is worth.
CREATE UNLOGGED TABLE rate_limits (
    bucket bytea PRIMARY KEY,
    tat    timestamptz NOT NULL
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);
