package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// NotifyChannel is the PostgreSQL channel appends are announced on, with
// payloads of "<stream id>:<version after the append>" entries separated
// by commas (see ParseNotification).
const NotifyChannel = "azuld_events"

// Limits on what an append accepts, so that a bad request gets a clear
// error instead of a database failure.
const (
	// MaxBatch is the most events one append may write.
	MaxBatch = 1000
	// MaxTypeLength is the longest event type name.
	MaxTypeLength = 100
	// MaxKeyLength bounds the idempotency scope, key and request hash.
	MaxKeyLength = 255
)

// An append is one INSERT statement (see appendSQL), so that without a
// hook it costs one round trip in its own implicit transaction. Its
// parameters, in every variant:
//
//	$1 stream id, $2 expected version, $3 type(s), $4 schema version(s),
//	$5 data, $6 meta, and with an idempotency key $7 the key's id
//	(KeyID), $8 the request's digest (RequestDigest).
//
// A single event is passed as scalars, a batch as arrays.
type appendShape struct {
	newStream bool // ExpectedVersion == 0: also registers the stream
	batch     bool // more than one event
	keyed     bool // with an idempotency key
}

// appendSQL writes the statement of one shape. It returns the appended
// events' (version, global_position, recorded_at), or, for a key used
// before, one row with that use (request_hash, stream_id, first_version,
// last_version) and no events. No row at all means the expected version
// does not exist (the stream is behind it); a unique violation means
// another append took the version (or the key) first.
func appendSQL(sh appendShape, also ...string) string {
	var b strings.Builder
	var ctes []string
	guards := []string{}
	if sh.keyed {
		ctes = append(ctes, `prior AS (
	SELECT request_hash, stream_id, first_version, last_version
	FROM idempotency_keys WHERE id = $7)`)
		guards = append(guards, "NOT EXISTS (SELECT FROM prior)")
	}
	if sh.newStream {
		s := `new_stream AS (
	INSERT INTO streams (id) SELECT $1::uuid`
		if sh.keyed {
			s += ` WHERE NOT EXISTS (SELECT FROM prior)`
		}
		ctes = append(ctes, s+` ON CONFLICT (id) DO NOTHING)`)
	} else {
		// No holes: the expected version must exist.
		guards = append(guards, "EXISTS (SELECT FROM events p WHERE p.stream_id = $1::uuid AND p.version = $2::bigint)")
	}
	insert := `INSERT INTO events (stream_id, version, type, schema_version, data, meta)
	SELECT $1::uuid, `
	if sh.batch {
		// The append's first event holds the meta, the others sameMeta.
		insert += `$2::bigint + e.i, e.t, e.s, e.d, CASE WHEN e.i = 1 THEN $6::json ELSE '` + sameMeta + `'::json END
	FROM unnest($3::text[], $4::int[], $5::json[]) WITH ORDINALITY AS e (t, s, d, i)`
	} else {
		insert += `$2::bigint + 1, $3::text, $4::int, $5::json, $6::json`
	}
	if len(guards) > 0 {
		insert += "\n\tWHERE " + strings.Join(guards, " AND ")
	}
	insert += "\n\tRETURNING version, global_position, recorded_at"

	if !sh.keyed && len(also) == 0 {
		if len(ctes) > 0 {
			b.WriteString("WITH " + strings.Join(ctes, ",\n") + "\n")
		}
		b.WriteString(insert)
		return b.String()
	}
	ctes = append(ctes, "appended AS (\n\t"+insert+")")
	if sh.keyed {
		ctes = append(ctes, `keyed AS (
	INSERT INTO idempotency_keys (id, request_hash, stream_id, first_version, last_version)
	SELECT $7, $8, $1::uuid, min(version), max(version) FROM appended HAVING count(*) > 0)`)
	}
	for i, a := range also {
		ctes = append(ctes, fmt.Sprintf("also%d AS (\n\t%s)", i, a))
	}
	b.WriteString("WITH " + strings.Join(ctes, ",\n") + "\n")
	if !sh.keyed {
		b.WriteString("SELECT version, global_position, recorded_at FROM appended")
		return b.String()
	}
	b.WriteString(`SELECT version, global_position, recorded_at, NULL::bytea, NULL::text, NULL::bigint, NULL::bigint FROM appended
UNION ALL
SELECT NULL, NULL, NULL, request_hash, stream_id::text, first_version, last_version FROM prior`)
	return b.String()
}

// placeholder is a statement parameter ($1, $2, ...).
var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// renumber shifts a companion's parameters past the append's own.
func renumber(sql string, offset int) (string, error) {
	var bad error
	out := placeholder.ReplaceAllStringFunc(sql, func(p string) string {
		n, err := strconv.Atoi(p[1:])
		if err != nil || n < 1 {
			bad = fmt.Errorf("parameter %s", p)
			return p
		}
		return "$" + strconv.Itoa(n+offset)
	})
	return out, bad
}

// appendStatements holds every shape's statement, built once.
var appendStatements = func() map[appendShape]string {
	m := map[appendShape]string{}
	for _, newStream := range []bool{false, true} {
		for _, batch := range []bool{false, true} {
			for _, keyed := range []bool{false, true} {
				sh := appendShape{newStream, batch, keyed}
				m[sh] = appendSQL(sh)
			}
		}
	}
	return m
}()

// appendArgs is an AppendRequest checked and encoded for the statement.
type appendArgs struct {
	streamID string
	shape    appendShape
	params   []any
	// statement is the append's SQL when it has companions (else the
	// shape's, from appendStatements).
	statement string
}

// appendOutcome is what the statement returned.
type appendOutcome struct {
	// versions, positions and recordedAt of the appended events.
	versions   []int64
	positions  []int64
	recordedAt time.Time
	// prior is set when the key had been used.
	prior *priorUse
}

type priorUse struct {
	requestHash []byte
	streamID    string
	first, last int64
}

// Append appends req.Events to the stream req.StreamID at
// req.ExpectedVersion, in one transaction with req.Hook (see
// AppendRequest). Errors: *ConflictError (the stream is at another
// version), ErrIdempotencyMismatch, ErrInvalid (a malformed request), or
// the hook's error as it is; in every case nothing was written.
//
// Once committed, the append is announced on NotifyChannel, within a few
// milliseconds (see notifier).
func (s *Store) Append(ctx context.Context, req AppendRequest) (AppendResult, error) {
	args, err := checkAppend(req)
	if err != nil {
		return AppendResult{}, err
	}
	res, err := s.appendOnce(ctx, req, args)
	if err != nil && args.shape.keyed && errors.Is(err, ErrOutcomeUnknown) {
		return s.retryUnknown(ctx, req, args, err)
	}
	return res, err
}

// Unknown outcomes of keyed appends are tried again for up to
// unknownRetryLimit (within the caller's context), the pause between
// tries growing from unknownRetryFirst to unknownRetryMax: a fail-over
// takes about ten seconds, and an HTTP client waits for thirty.
const (
	unknownRetryLimit = 20 * time.Second
	unknownRetryFirst = 100 * time.Millisecond
	unknownRetryMax   = 2 * time.Second
)

// retryUnknown sends a keyed append whose outcome is unknown again, until
// a primary answers: the key makes the statement return the first
// attempt's result if that one committed, or append now if it did not,
// so the events are in the log once either way. It gives up with the
// first error (ErrOutcomeUnknown) when the caller's context ends or
// unknownRetryLimit passes.
func (s *Store) retryUnknown(ctx context.Context, req AppendRequest, args appendArgs, first error) (AppendResult, error) {
	ctx, cancel := context.WithTimeout(ctx, unknownRetryLimit)
	defer cancel()
	last := first
	for delay := unknownRetryFirst; ; delay = min(2*delay, unknownRetryMax) {
		select {
		case <-ctx.Done():
			if last == first {
				return AppendResult{}, first
			}
			return AppendResult{}, fmt.Errorf("%w (tried again until %v: %w)", first, ctx.Err(), last)
		case <-time.After(delay):
		}
		res, err := s.appendOnce(ctx, req, args)
		if err == nil || !Unavailable(err) {
			// An answer: the events appended now or by the first attempt,
			// or a refusal (a conflict means the first attempt did not
			// commit, since its key would have been found).
			return res, err
		}
		s.log.WarnContext(ctx, "event store: the database did not confirm an append; trying again with its idempotency key",
			"stream", args.streamID, "err", err.Error())
		last = err
	}
}

// appendOnce sends an append once.
func (s *Store) appendOnce(ctx context.Context, req AppendRequest, args appendArgs) (AppendResult, error) {
	var out appendOutcome
	var records []Record
	var err error
	if req.Hook == nil {
		// One statement in its own implicit transaction: one round trip.
		out, err = s.appendStatement(ctx, args)
		if err == nil && len(out.versions) > 0 {
			records, err = appendedRecords(req, args, out)
		}
	} else {
		records, out, err = s.appendWithHook(ctx, req, args)
	}
	if err != nil {
		return s.appendFailed(ctx, req, args, err)
	}
	switch {
	case out.prior != nil && bytes.Equal(out.prior.requestHash, RequestDigest(req.RequestHash)):
		return s.replayed(ctx, *out.prior)
	case out.prior != nil:
		return AppendResult{}, fmt.Errorf("append to stream %s with key %q: %w", args.streamID, req.IdempotencyKey, ErrIdempotencyMismatch)
	case len(records) == 0:
		// The expected version does not exist yet.
		return s.conflict(ctx, req, args)
	}
	s.notifier.add(args.streamID, records[len(records)-1].Version)
	return AppendResult{Records: records}, nil
}

// appendStatement runs the append statement, in its own implicit
// transaction, on a connection taken from the pool for it, so that what
// the server said on that connection while committing can be checked
// (see ConfigureConn).
func (s *Store) appendStatement(ctx context.Context, args appendArgs) (appendOutcome, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return appendOutcome{}, fmt.Errorf("acquire a connection: %w", err)
	}
	defer conn.Release()
	// A mark left by an earlier use of the connection is not this
	// append's.
	unconfirmed(conn.Conn().PgConn())
	out, err := runAppend(ctx, conn, args)
	return out, commitOutcome(conn.Conn().PgConn(), err)
}

// commitOutcome is the error of a commit that ended in err on pc: an
// error that leaves the commit's outcome unknown wraps ErrOutcomeUnknown,
// and so does a success the server reported as not confirmed by the
// synchronous standby.
func commitOutcome(pc *pgconn.PgConn, err error) error {
	switch {
	case err != nil && committedUnknown(err):
		return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	case err != nil:
		return err
	case unconfirmed(pc):
		// Committed here, perhaps not on the standby: a fail-over now
		// would lose it, so it must not be acknowledged. The session is
		// closed, since the server is stopping or was told to cancel.
		_ = pc.Close(context.Background())
		return fmt.Errorf("%w: the commit was not confirmed by the synchronous standby", ErrOutcomeUnknown)
	}
	return nil
}

// runAppend runs the append statement and reads what it returned.
func runAppend(ctx context.Context, q Querier, args appendArgs) (appendOutcome, error) {
	var out appendOutcome
	sql := args.statement
	if sql == "" {
		sql = appendStatements[args.shape]
	}
	rows, err := q.Query(ctx, sql, args.params...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var version, position *int64
		var recordedAt *time.Time
		if !args.shape.keyed {
			err = rows.Scan(&version, &position, &recordedAt)
		} else {
			var p priorUse
			var hash []byte
			var streamID *string
			var first, last *int64
			err = rows.Scan(&version, &position, &recordedAt, &hash, &streamID, &first, &last)
			if err == nil && hash != nil && streamID != nil && first != nil && last != nil {
				p = priorUse{requestHash: hash, streamID: *streamID, first: *first, last: *last}
				out.prior = &p
				continue
			}
		}
		if err != nil {
			return out, err
		}
		if version == nil || position == nil || recordedAt == nil {
			return out, errors.New("the append statement returned an incomplete row")
		}
		out.versions = append(out.versions, *version)
		out.positions = append(out.positions, *position)
		out.recordedAt = *recordedAt
	}
	return out, rows.Err()
}

// appendWithHook runs the statement and the hook in one explicit
// transaction.
func (s *Store) appendWithHook(ctx context.Context, req AppendRequest, args appendArgs) ([]Record, appendOutcome, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, appendOutcome{}, fmt.Errorf("acquire a connection: %w", err)
	}
	defer conn.Release()
	unconfirmed(conn.Conn().PgConn())
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, appendOutcome{}, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	out, err := runAppend(ctx, tx, args)
	if err != nil || len(out.versions) == 0 {
		return nil, out, err
	}
	records, err := appendedRecords(req, args, out)
	if err != nil {
		return nil, out, err
	}
	if err := req.Hook(ctx, tx, records); err != nil {
		return nil, out, &hookError{err: err}
	}
	// Until COMMIT is sent, a lost connection rolls everything back;
	// from then on, the outcome is the server's to tell.
	if err := commitOutcome(conn.Conn().PgConn(), tx.Commit(ctx)); err != nil {
		return nil, out, fmt.Errorf("commit: %w", err)
	}
	return records, out, nil
}

// hookError marks an error of the caller's hook, passed on as it is.
type hookError struct{ err error }

func (e *hookError) Error() string { return e.err.Error() }
func (e *hookError) Unwrap() error { return e.err }

// appendFailed turns a failed append into the error the caller sees.
func (s *Store) appendFailed(ctx context.Context, req AppendRequest, args appendArgs, err error) (AppendResult, error) {
	var hook *hookError
	if errors.As(err, &hook) {
		return AppendResult{}, hook.err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505" || pgErr.Code == "40001" || pgErr.Code == "40P01":
			// Another append took the version or the key first (the
			// unique check waited for it to commit), or won a race the
			// caller's isolation level or hook made visible.
			return s.conflict(ctx, req, args)
		case strings.HasPrefix(pgErr.Code, "22") || pgErr.Code == "23514":
			// A data exception: e.g. JSON that jsonb refuses (\u0000).
			return AppendResult{}, fmt.Errorf("append to stream %s: %w: %s", args.streamID, ErrInvalid, pgErr.Message)
		}
	}
	return AppendResult{}, fmt.Errorf("append to stream %s: %w", args.streamID, err)
}

// conflict answers an append that lost: with the first result of its
// idempotency key when that key was used meanwhile (a retry racing with,
// or following, its own first attempt), else with a *ConflictError.
func (s *Store) conflict(ctx context.Context, req AppendRequest, args appendArgs) (AppendResult, error) {
	if args.shape.keyed {
		recs, found, err := s.Idempotent(ctx, req.IdempotencyScope, req.IdempotencyKey, req.RequestHash)
		if err != nil {
			return AppendResult{}, err
		}
		if found {
			return AppendResult{Records: recs, Replayed: true}, nil
		}
	}
	actual, err := streamVersion(ctx, s.pool, args.streamID)
	if err != nil {
		return AppendResult{}, err
	}
	return AppendResult{}, &ConflictError{StreamID: args.streamID, Expected: req.ExpectedVersion, Actual: actual}
}

// replayed reads the records of the first use of an idempotency key,
// once they are known to be on the synchronous standby (see durable).
func (s *Store) replayed(ctx context.Context, p priorUse) (AppendResult, error) {
	if err := s.durable(ctx); err != nil {
		return AppendResult{}, fmt.Errorf("confirm the first result of an idempotent command: %w", err)
	}
	recs, err := ReadStream(ctx, s.pool, p.streamID, p.first-1, int(p.last-p.first+1))
	if err != nil {
		return AppendResult{}, fmt.Errorf("read the first result of an idempotent command: %w", err)
	}
	return AppendResult{Records: recs, Replayed: true}, nil
}

// durable returns once every commit the server has made is confirmed by
// its synchronous standby, when it has one. A first attempt whose wait for
// the standby was cancelled is visible, yet may be lost by a fail-over:
// its key must not be answered before the standby has it. A transaction
// that takes an id commits with a WAL record, and waits for the standby
// to have the log up to it, so up to every earlier commit. Without
// synchronous replication this costs one round trip more, on a replay
// only.
func (s *Store) durable(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire a connection: %w", err)
	}
	defer conn.Release()
	unconfirmed(conn.Conn().PgConn())
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		return err
	}
	if err := commitOutcome(conn.Conn().PgConn(), tx.Commit(ctx)); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Idempotent looks up an idempotency key without writing anything: the
// records the first command with this key appended (found), nothing (the
// key is unused), or ErrIdempotencyMismatch (it was used with another
// request hash).
func (s *Store) Idempotent(ctx context.Context, scope, key, requestHash string) ([]Record, bool, error) {
	var p priorUse
	err := s.pool.QueryRow(ctx, `SELECT request_hash, stream_id::text, first_version, last_version
		FROM idempotency_keys WHERE id = $1`, KeyID(scope, key)).Scan(&p.requestHash, &p.streamID, &p.first, &p.last)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("look up idempotency key %q: %w", key, err)
	}
	if !bytes.Equal(p.requestHash, RequestDigest(requestHash)) {
		return nil, true, fmt.Errorf("key %q: %w", key, ErrIdempotencyMismatch)
	}
	res, err := s.replayed(ctx, p)
	return res.Records, true, err
}

// appendedRecords builds the records an append wrote from the request and
// what the database assigned.
func appendedRecords(req AppendRequest, args appendArgs, out appendOutcome) ([]Record, error) {
	if len(out.versions) != len(req.Events) {
		return nil, fmt.Errorf("append to stream %s: the database returned %d rows for %d events",
			args.streamID, len(out.versions), len(req.Events))
	}
	records := make([]Record, len(req.Events))
	for i := range out.versions {
		v := out.versions[i]
		k := int(v - req.ExpectedVersion - 1)
		if k < 0 || k >= len(records) || records[k].Version != 0 {
			return nil, fmt.Errorf("append to stream %s: the database returned version %d", args.streamID, v)
		}
		e := req.Events[k]
		records[k] = Record{
			StreamID: args.streamID, Version: v, Position: out.positions[i],
			Type: e.Type, Schema: e.Schema, Data: e.Data, Meta: req.Meta, RecordedAt: out.recordedAt,
		}
	}
	return records, nil
}

// checkAppend validates an append request and encodes it.
func checkAppend(req AppendRequest) (appendArgs, error) {
	id, err := canonicalID(req.StreamID)
	if err != nil {
		return appendArgs{}, err
	}
	bad := func(format string, a ...any) (appendArgs, error) {
		return appendArgs{}, fmt.Errorf("append to stream %s: %w: %s", id, ErrInvalid, fmt.Sprintf(format, a...))
	}
	switch {
	case req.ExpectedVersion < 0:
		return bad("negative expected version %d", req.ExpectedVersion)
	case len(req.Events) == 0:
		return bad("no events")
	case len(req.Events) > MaxBatch:
		return bad("%d events in one append (at most %d)", len(req.Events), MaxBatch)
	}
	for i, e := range req.Events {
		switch {
		case e.Type == "" || len(e.Type) > MaxTypeLength:
			return bad("event %d: the type must have 1 to %d bytes", i, MaxTypeLength)
		case e.Schema < 1 || e.Schema > 1<<30:
			return bad("event %d (%s): schema version %d", i, e.Type, e.Schema)
		case !json.Valid(e.Data):
			return bad("event %d (%s): data is not JSON", i, e.Type)
		}
	}
	meta, err := json.Marshal(req.Meta)
	if err != nil {
		return bad("meta: %v", err)
	}
	args := appendArgs{streamID: id, shape: appendShape{
		newStream: req.ExpectedVersion == 0,
		batch:     len(req.Events) > 1,
		keyed:     req.IdempotencyKey != "",
	}}
	// The statements cast $5 and $6 to json, so pgx sends the bytes as
	// they are (as JSON, not bytea).
	args.params = make([]any, 6, 9)
	args.params[0], args.params[1], args.params[5] = id, req.ExpectedVersion, meta
	if args.shape.batch {
		types, schemas, data := make([]string, len(req.Events)), make([]int32, len(req.Events)), make([][]byte, len(req.Events))
		for i, e := range req.Events {
			types[i], schemas[i], data[i] = e.Type, int32(e.Schema), e.Data
		}
		args.params[2], args.params[3], args.params[4] = types, schemas, data
	} else {
		e := req.Events[0]
		args.params[2], args.params[3], args.params[4] = e.Type, int32(e.Schema), []byte(e.Data)
	}
	if args.shape.keyed {
		if len(req.IdempotencyKey) > MaxKeyLength || len(req.IdempotencyScope) > MaxKeyLength || len(req.RequestHash) > MaxKeyLength {
			return bad("idempotency scope, key and request hash have at most %d bytes each", MaxKeyLength)
		}
		args.params = append(args.params, KeyID(req.IdempotencyScope, req.IdempotencyKey), RequestDigest(req.RequestHash))
	}
	if len(req.Also) > 0 {
		also := make([]string, len(req.Also))
		for i, c := range req.Also {
			if strings.TrimSpace(c.SQL) == "" {
				return bad("companion statement %d is empty", i)
			}
			sql, err := renumber(c.SQL, len(args.params))
			if err != nil {
				return bad("companion statement %d: %v", i, err)
			}
			also[i] = sql
			args.params = append(args.params, c.Args...)
		}
		args.statement = appendSQL(args.shape, also...)
	}
	return args, nil
}
