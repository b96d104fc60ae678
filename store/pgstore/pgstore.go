// Package pgstore is the artifact store in PostgreSQL (pgx/v5), for many
// runtimes sharing one store.
package pgstore

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store/internal/record"
)

//go:embed migrations/*.sql
var migrations embed.FS

// versionTable is goose's table of applied migrations.
const versionTable = "veetbrowser_schema_version"

// migrationLockID is the advisory lock key every opener takes around
// migration ("veetbrow" in ASCII).
const migrationLockID int64 = 0x7665657462726f77

// Store is an artifact store in a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
}

// Open connects to the database dsn names and migrates its schema.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parser's error can quote the DSN, password included.
		return nil, errcode.New(errcode.InvalidArgument, "the PostgreSQL connection string is not valid")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, record.Fail(err, "the artifact store cannot be opened")
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool}, nil
}

// migrate applies the schema migrations the database lacks, under a
// session advisory lock, so that openers take turns.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return record.Fail(err, "the artifact store's schema is missing")
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithTableName(versionTable),
		goose.WithDisableGlobalRegistry(true), goose.WithSessionLocker(advisoryLock{}))
	if err != nil {
		return record.Fail(err, "the artifact store cannot be migrated")
	}
	if _, err := p.Up(ctx); err != nil {
		return record.Fail(err, "the artifact store's schema could not be migrated")
	}
	return nil
}

// advisoryLock waits for the session advisory lock (goose's own PostgreSQL
// locker polls every few seconds; this one is granted the moment the
// holder lets go).
type advisoryLock struct{}

func (advisoryLock) SessionLock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLockID)
	return err
}

func (advisoryLock) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, migrationLockID)
	return err
}

// Close closes the store's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// CreateSession records a session.
func (s *Store) CreateSession(ctx context.Context, sess record.Session) error {
	if err := record.CheckSession(&sess); err != nil {
		return err
	}
	start := record.Timestamp(sess.StartedAt)
	_, err := s.pool.Exec(ctx, `INSERT INTO veetbrowser_sessions (id, started_at, last_at, tool_version, budget, grant_json, surface)
		VALUES ($1, $2, $2, $3, $4, $5, $6)`, sess.ID, start, sess.Version, sess.Budget, string(sess.Grant), sess.Surface)
	if err != nil {
		if isUniqueViolation(err) {
			return errcode.New(errcode.InvalidArgument, "a session with that id is already recorded")
		}
		return record.Fail(err, "the session could not be recorded")
	}
	return nil
}

// Intent records a call about to be dispatched.
func (s *Store) Intent(ctx context.Context, c record.Call) (int64, error) {
	if err := record.CheckCall(&c); err != nil {
		return 0, err
	}
	c.Status = record.StatusIntent
	c.Result = record.Result{}
	return s.insert(ctx, &c)
}

// Record writes a whole call.
func (s *Store) Record(ctx context.Context, c record.Call) (int64, error) {
	if err := record.CheckCall(&c); err != nil {
		return 0, err
	}
	if err := record.CheckResult(&c.Result); err != nil {
		return 0, err
	}
	c.Status = record.StatusComplete
	return s.insert(ctx, &c)
}

// insert takes the session's next sequence number (its row lock orders
// concurrent writers of one session) and writes c, in one transaction.
func (s *Store) insert(ctx context.Context, c *record.Call) (seq int64, err error) {
	r, err := resultColumns(&c.Result, c.Status)
	if err != nil {
		return 0, err
	}
	start := record.Timestamp(c.StartedAt)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE veetbrowser_sessions SET last_seq = last_seq + 1,
			last_at = greatest(last_at, $1), bytes = bytes + $2 WHERE id = $3 RETURNING last_seq`,
			start, c.Size(), c.SessionID).Scan(&seq)
		if errors.Is(err, pgx.ErrNoRows) {
			return record.NoSession()
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO veetbrowser_calls (session_id, seq, tool, arguments, started_at, status,
			duration_ns, outcome, observation, action, view_sha256, view_bytes, projection)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			c.SessionID, seq, c.Tool, string(c.Arguments), start, c.Status,
			r.duration, r.outcome, r.observation, r.action, r.viewSHA, r.viewBytes, r.projection)
		return err
	})
	if err != nil {
		return 0, failed(err, "the call could not be recorded")
	}
	return seq, nil
}

// Complete records the result of an open intent.
func (s *Store) Complete(ctx context.Context, sessionID string, seq int64, res record.Result) error {
	if err := record.CheckID(sessionID); err != nil {
		return err
	}
	if err := record.CheckResult(&res); err != nil {
		return err
	}
	r, err := resultColumns(&res, record.StatusComplete)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		done, err := tx.Exec(ctx, `UPDATE veetbrowser_calls SET status = 'complete', duration_ns = $1, outcome = $2,
			observation = $3, action = $4, view_sha256 = $5, view_bytes = $6, projection = $7
			WHERE session_id = $8 AND seq = $9 AND status = 'intent'`,
			r.duration, r.outcome, r.observation, r.action, r.viewSHA, r.viewBytes, r.projection, sessionID, seq)
		if err != nil {
			return err
		}
		if done.RowsAffected() != 1 {
			return record.NoIntent()
		}
		_, err = tx.Exec(ctx, `UPDATE veetbrowser_sessions SET bytes = bytes + $1 WHERE id = $2`, res.Size(), sessionID)
		return err
	})
	return failed(err, "the call's result could not be recorded")
}

// columns are a result as PostgreSQL stores it: JSON as text, absent as
// NULL.
type columns struct {
	duration, outcome, viewBytes             any
	observation, action, projection, viewSHA any
}

func resultColumns(r *record.Result, status string) (columns, error) {
	if status == record.StatusIntent {
		return columns{}, nil
	}
	c := columns{duration: int64(r.Duration), outcome: r.Outcome,
		observation: text(r.Observation), action: text(r.Action)}
	if r.View != nil {
		p, err := json.Marshal(r.Projection)
		if err != nil {
			return c, errcode.Wrap(errcode.InvalidArgument, err, "the view's projection inputs cannot be encoded")
		}
		c.viewSHA, c.viewBytes, c.projection = r.View.SHA256, r.View.Bytes, string(p)
	}
	return c, nil
}

func text(doc json.RawMessage) any {
	if doc == nil {
		return nil
	}
	return string(doc)
}

// Session reads a session record.
func (s *Store) Session(ctx context.Context, id string) (record.Session, error) {
	if err := record.CheckID(id); err != nil {
		return record.Session{}, err
	}
	var sess record.Session
	var grant string
	err := s.pool.QueryRow(ctx, `SELECT id, started_at, tool_version, budget, grant_json::text, surface
		FROM veetbrowser_sessions WHERE id = $1`, id).
		Scan(&sess.ID, &sess.StartedAt, &sess.Version, &sess.Budget, &grant, &sess.Surface)
	if errors.Is(err, pgx.ErrNoRows) {
		return record.Session{}, record.NoSession()
	}
	if err != nil {
		return record.Session{}, record.Fail(err, "the session could not be read")
	}
	sess.StartedAt, sess.Grant = sess.StartedAt.UTC(), json.RawMessage(grant)
	return sess, nil
}

// Calls reads a session's calls in sequence order.
func (s *Store) Calls(ctx context.Context, sessionID string, fn func(record.Call) error) error {
	if _, err := s.Session(ctx, sessionID); err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, `SELECT session_id, seq, tool, arguments::text, started_at, status, duration_ns, outcome,
		observation::text, action::text, view_sha256, view_bytes, projection::text
		FROM veetbrowser_calls WHERE session_id = $1 ORDER BY seq`, sessionID)
	if err != nil {
		return record.Fail(err, "the session's calls could not be read")
	}
	defer rows.Close()
	for rows.Next() {
		var c record.Call
		var args string
		var duration *int64
		var outcome, observation, action, projection *string
		var viewBytes *int32
		var viewSHA []byte
		if err := rows.Scan(&c.SessionID, &c.Seq, &c.Tool, &args, &c.StartedAt, &c.Status, &duration, &outcome,
			&observation, &action, &viewSHA, &viewBytes, &projection); err != nil {
			return record.Fail(err, "the session's calls could not be read")
		}
		c.Arguments, c.StartedAt = json.RawMessage(args), c.StartedAt.UTC()
		if duration != nil {
			c.Duration = time.Duration(*duration)
		}
		if outcome != nil {
			c.Outcome = *outcome
		}
		c.Observation, c.Action = raw(observation), raw(action)
		if viewSHA != nil && viewBytes != nil && projection != nil {
			c.View = &record.View{SHA256: viewSHA, Bytes: int(*viewBytes)}
			c.Projection = new(record.Projection)
			if err := json.Unmarshal([]byte(*projection), c.Projection); err != nil {
				return record.Fail(err, "a call's projection inputs could not be read")
			}
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return record.Fail(err, "the session's calls could not be read")
	}
	return nil
}

func raw(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

// Sessions lists sessions, newest first, with their call and outcome counts.
func (s *Store) Sessions(ctx context.Context, opts record.ListOptions) ([]record.Summary, error) {
	limit, err := record.Limit(opts)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `WITH s AS (SELECT * FROM veetbrowser_sessions ORDER BY started_at DESC, id DESC LIMIT $1)
		SELECT s.id, s.started_at, s.last_at, s.tool_version, s.budget, s.grant_json::text, s.surface, s.bytes,
			CASE WHEN c.status = 'intent' THEN 'intent' ELSE c.outcome END AS outcome, count(c.seq)
		FROM s LEFT JOIN veetbrowser_calls c ON c.session_id = s.id
		GROUP BY s.id, s.started_at, s.last_at, s.tool_version, s.budget, s.grant_json::text, s.surface, s.bytes, 9
		ORDER BY s.started_at DESC, s.id DESC`, limit)
	if err != nil {
		return nil, record.Fail(err, "the sessions could not be listed")
	}
	defer rows.Close()
	var list []record.Summary
	for rows.Next() {
		var sum record.Summary
		var grant string
		var outcome *string
		var n int64
		if err := rows.Scan(&sum.ID, &sum.StartedAt, &sum.LastAt, &sum.Version, &sum.Budget, &grant, &sum.Surface,
			&sum.Bytes, &outcome, &n); err != nil {
			return nil, record.Fail(err, "the sessions could not be listed")
		}
		if len(list) == 0 || list[len(list)-1].ID != sum.ID {
			sum.StartedAt, sum.LastAt, sum.Grant = sum.StartedAt.UTC(), sum.LastAt.UTC(), json.RawMessage(grant)
			sum.Outcomes = map[string]int{}
			list = append(list, sum)
		}
		if outcome != nil {
			last := &list[len(list)-1]
			last.Outcomes[*outcome] += int(n)
			last.Calls += int(n)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, record.Fail(err, "the sessions could not be listed")
	}
	return list, nil
}

// Prune removes whole sessions by age of their last write, then the oldest
// until at most maxBytes of records remain.
func (s *Store) Prune(ctx context.Context, olderThan time.Duration, maxBytes int64) (record.Pruned, error) {
	if olderThan < 0 || maxBytes < 0 {
		return record.Pruned{}, errcode.New(errcode.InvalidArgument, "retention limits cannot be negative")
	}
	var p record.Pruned
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Prunes of several runtimes take turns; writers are not held up.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockID+1); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, last_at, bytes FROM veetbrowser_sessions ORDER BY last_at DESC, id DESC`)
		if err != nil {
			return err
		}
		all, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (record.Extent, error) {
			var x record.Extent
			err := row.Scan(&x.ID, &x.LastAt, &x.Bytes)
			return x, err
		})
		if err != nil {
			return err
		}
		for _, x := range record.Prunable(all, time.Now(), olderThan, maxBytes) {
			calls, err := tx.Exec(ctx, `DELETE FROM veetbrowser_calls WHERE session_id = $1`, x.ID)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM veetbrowser_sessions WHERE id = $1`, x.ID); err != nil {
				return err
			}
			p.Sessions++
			p.Calls += int(calls.RowsAffected())
			p.Bytes += x.Bytes
		}
		return nil
	})
	if err != nil {
		return record.Pruned{}, failed(err, "the artifact store could not be pruned")
	}
	return p, nil
}

// failed keeps a coded error as it is and wraps any other as Unavailable.
func failed(err error, msg string) error {
	if err == nil {
		return nil
	}
	var coded *errcode.Error
	if errors.As(err, &coded) && coded.Code != record.Unavailable {
		return err
	}
	return record.Fail(err, "%s", msg)
}

// uniqueViolation is PostgreSQL's SQLSTATE for a duplicate key.
const uniqueViolation = "23505"

func isUniqueViolation(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == uniqueViolation
}
