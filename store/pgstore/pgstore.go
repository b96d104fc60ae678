// Package pgstore is the artifact store in PostgreSQL (pgx/v5), for many
// runtimes sharing one store.
package pgstore

import (
	"context"
	"database/sql"
	"embed"
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
	"github.com/veetbot/veetbrowser/store/internal/sqlstore"
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
	return sqlstore.Created(err, isUniqueViolation)
}

// Intent records a call about to be dispatched.
func (s *Store) Intent(ctx context.Context, c record.Call) (int64, error) {
	return s.insert(ctx, c, sqlstore.AsIntent)
}

// Record writes a whole call.
func (s *Store) Record(ctx context.Context, c record.Call) (int64, error) {
	return s.insert(ctx, c, sqlstore.AsComplete)
}

// insert readies c, takes the session's next sequence number (its row lock
// orders concurrent writers of one session) and writes c, in one
// transaction.
func (s *Store) insert(ctx context.Context, c record.Call, ready sqlstore.Ready) (seq int64, err error) {
	r, err := ready(&c)
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
			append([]any{c.SessionID, seq, c.Tool, string(c.Arguments), start, c.Status}, r.Args()...)...)
		return err
	})
	if err != nil {
		return 0, sqlstore.Failed(err, "the call could not be recorded")
	}
	return seq, nil
}

// Complete records the result of an open intent.
func (s *Store) Complete(ctx context.Context, sessionID string, seq int64, res record.Result) error {
	r, err := sqlstore.Completion(sessionID, &res)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		done, err := tx.Exec(ctx, `UPDATE veetbrowser_calls SET status = 'complete', duration_ns = $1, outcome = $2,
			observation = $3, action = $4, view_sha256 = $5, view_bytes = $6, projection = $7
			WHERE session_id = $8 AND seq = $9 AND status = 'intent'`,
			append(r.Args(), sessionID, seq)...)
		if err != nil {
			return err
		}
		if done.RowsAffected() != 1 {
			return record.NoIntent()
		}
		_, err = tx.Exec(ctx, `UPDATE veetbrowser_sessions SET bytes = bytes + $1 WHERE id = $2`, res.Size(), sessionID)
		return err
	})
	return sqlstore.Failed(err, "the call's result could not be recorded")
}

// Session reads a session record.
func (s *Store) Session(ctx context.Context, id string) (record.Session, error) {
	if err := record.CheckID(id); err != nil {
		return record.Session{}, err
	}
	return sqlstore.ReadSession(s.pool.QueryRow(ctx, `SELECT id, started_at, tool_version, budget, grant_json::text, surface
		FROM veetbrowser_sessions WHERE id = $1`, id), utc)
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
	return sqlstore.EachCall(rows, utc, fn)
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
	return sqlstore.Summaries(rows, utc)
}

// Prune removes whole sessions by age of their last write, then the oldest
// until at most maxBytes of records remain.
func (s *Store) Prune(ctx context.Context, olderThan time.Duration, maxBytes int64) (record.Pruned, error) {
	if err := sqlstore.CheckRetention(olderThan, maxBytes); err != nil {
		return record.Pruned{}, err
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
		all, err := sqlstore.Extents(rows, utc)
		rows.Close()
		if err != nil {
			return err
		}
		p, err = sqlstore.Prune(all, olderThan, maxBytes, func(id string) (int64, error) {
			calls, err := tx.Exec(ctx, `DELETE FROM veetbrowser_calls WHERE session_id = $1`, id)
			if err != nil {
				return 0, err
			}
			_, err = tx.Exec(ctx, `DELETE FROM veetbrowser_sessions WHERE id = $1`, id)
			return calls.RowsAffected(), err
		})
		return err
	})
	if err != nil {
		return record.Pruned{}, sqlstore.Failed(err, "the artifact store could not be pruned")
	}
	return p, nil
}

// utc is a timestamptz column's time in UTC.
func utc(t time.Time) time.Time { return t.UTC() }

// uniqueViolation is PostgreSQL's SQLSTATE for a duplicate key.
const uniqueViolation = "23505"

func isUniqueViolation(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == uniqueViolation
}
