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
//   - streams(id, version, ...): one row per game. An append bumps it with
//     a version check, which serialises the appends of one game: of two
//     appends at the same expected version exactly one commits, the other
//     gets a *ConflictError and writes nothing.
//   - events(stream_id, version, global_position, type, schema_version,
//     data, meta, recorded_at, tx_id), primary key (stream_id, version).
//     Triggers refuse every UPDATE, DELETE and TRUNCATE. global_position
//     comes from an identity sequence; tx_id is the writing transaction
//     (pg_current_xact_id()).
//   - idempotency_keys(scope, key, request_hash, stream_id, first_version,
//     last_version): what each keyed command appended.
//   - snapshots(stream_id, format, version, data): optional.
//   - consumer_checkpoints(name, tx_id, position): consumer progress.
//
// An append is one call of the SQL function append_events, a single
// statement: without a TxHook it is one round trip in its own implicit
// transaction; with one, it runs inside an explicit transaction together
// with the hook's writes. Every append notifies the channel
// NotifyChannel with "<stream id>:<version>" at commit.
//
// # Snapshots
//
// A snapshot is a state at some version of a stream, written by code
// whose state format is the snapshot's format. Reading a stream takes the
// latest snapshot of the reader's own format at or before the wanted
// version, and folds the events after it; snapshots of other formats are
// ignored, as is a snapshot that fails to decode. So snapshots change no
// answer: DeleteSnapshots (or losing them all) only makes reads slower.
// LoadState implements this rule for any state type and writes a new
// snapshot every N events.
//
// # The gap-safe consumer
//
// Positions come from a sequence, which is taken when a row is inserted,
// not when its transaction commits: a transaction may commit a lower
// position after a higher one is already visible. A reader that
// remembers "the highest position seen" would skip it for ever. A
// Consumer therefore reads in the order (tx_id, global_position), and
// only the events whose transaction is older than the xmin of its
// snapshot (pg_snapshot_xmin(pg_current_snapshot())): every transaction
// below xmin has ended, so no event can appear later below that line, and
// a checkpoint (tx_id, position) is never passed by a late commit. The
// price is latency: a long transaction anywhere in the cluster holds the
// consumers back until it ends. Consumers are at-least-once towards the
// outside world and exactly-once for writes made through the transaction
// their handler gets, which also advances the checkpoint.
package events
