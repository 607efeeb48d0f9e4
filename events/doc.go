// Package events holds the stored form of game events and the PostgreSQL
// event store: one stream per game, append with an expected version,
// idempotent commands, snapshots, immutability enforced by the database,
// live notifications and a gap-safe consumer over the global order.
//
// The store knows nothing of game rules: it stores typed JSON facts. The
// play package folds them through the engine.
//
// # Schema (package migrations, 000001)
//
//   - events(stream_id, version, global_position, type, schema_version,
//     data, meta, recorded_at, tx_id), primary key (stream_id, version).
//     Triggers refuse every UPDATE, DELETE and TRUNCATE. global_position
//     comes from an identity sequence; tx_id is the writing transaction
//     (pg_current_xact_id()). data and meta are json, kept byte for byte
//     as appended. The meta is stored once per append: on its first
//     event; the others hold the number 0, "the meta of the event before"
//     (events written before this rule hold the full meta each). Every
//     read gives every record its full Meta, and a read that starts
//     inside an append reads that append's first event for it.
//   - streams(id, created_at): one row per stream, written by its first
//     append (StreamIDs reads it).
//   - idempotency_keys(id, request_hash, stream_id, first_version,
//     last_version, created_at): what each keyed command appended, under
//     the SHA-256 of its scope and key (KeyID) with the SHA-256 of its
//     request hash (migration 000018), kept IdempotencyRetention (a week)
//     and then deleted by the daily clean-up (DeleteExpiredKeys): a retry
//     after that is a new request.
//   - snapshots(stream_id, format, version, data): optional, deletable.
//   - consumer_checkpoints(name, tx_id, position): consumer progress.
//
// # Appending
//
// An append is one INSERT statement: without a TxHook it is a single
// round trip in its own implicit transaction; with one, it runs in an
// explicit transaction together with the hook's writes. The primary key
// serialises the appends of a stream: of two appends at the same
// expected version, the second waits for the first and fails with a
// unique violation, which becomes a *ConflictError; an append at expected
// version v > 0 also requires event v to exist, so streams have no holes. No
// version row is bumped: that would cost every append an UPDATE. With an
// idempotency key the same statement first looks the key up (a hit
// returns the first result and writes nothing) and records it; a key
// taken concurrently, or a conflict on a stream the key already wrote
// to, is answered from the key's first use.
//
// A committed append is announced on NotifyChannel, not inside its
// transaction but within a few milliseconds after it, several appends to
// a payload: PostgreSQL serialises the commits of notifying transactions
// on one lock, and a NOTIFY in every append halved append throughput. A
// process that dies between its commit and the notification loses that
// wake-up; listeners see the change with the stream's next append, or
// when they reconnect (Notice with Version 0).
//
// # Snapshots
//
// A snapshot is a state at some version of a stream, written by code
// whose state format is the snapshot's format. Reading a stream takes the
// latest snapshot of the reader's own format at or before the wanted
// version, and folds the events after it; snapshots of other formats are
// never read, and one that fails to decode is skipped. So snapshots
// change no answer: DeleteSnapshots (or losing them all) only makes reads
// slower. LoadState implements this rule for any state type and saves a
// new snapshot every N events.
//
// # The gap-safe consumer
//
// Positions come from a sequence, which is taken when a row is inserted,
// not when its transaction commits: a transaction may commit a lower
// position after a higher one is already visible, and a transaction that
// took its id first may take its position later. A reader that remembers
// "the highest position seen" would skip such events for ever. A Consumer
// therefore reads in the order (tx_id, global_position), and only the
// events whose transaction is older than the xmin of its snapshot
// (pg_snapshot_xmin(pg_current_snapshot())): every transaction below xmin
// has ended, so no event can appear later below that line, and a
// checkpoint (tx_id, position) is never passed by a late commit. The
// price is latency: a long transaction anywhere in the cluster holds the
// consumers back until it ends. Processes sharing a consumer name take
// turns under an advisory lock; a handler's writes through its
// transaction commit with the checkpoint (exactly once), its other
// effects happen at least once.
package events
