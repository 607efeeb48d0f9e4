-- The notification outbox follows the log (notify.Notifier.Follow, the
-- consumer azuld.outbox) instead of being written by each append. The
-- events appended before this migration had their jobs enqueued in their
-- own transactions, so the consumer starts after them: on a new database
-- that is the beginning, on an existing one the end of its log.
INSERT INTO consumer_checkpoints (name, tx_id, position)
SELECT 'azuld.outbox', coalesce(e.tx_id, '0'::xid8), coalesce(e.global_position, 0)
FROM (SELECT) AS one
LEFT JOIN LATERAL (
    SELECT tx_id, global_position FROM events
    ORDER BY tx_id DESC, global_position DESC LIMIT 1
) e ON true
ON CONFLICT (name) DO NOTHING;
