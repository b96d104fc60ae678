// Package sqlitestore is the artifact store in one embedded SQLite file
// (modernc.org/sqlite, no cgo): WAL, synchronous=FULL so that a record is on
// disk before its call returns, a busy timeout for other processes sharing
// the file, and writes serialized through one connection.
package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite" // and its "sqlite" database/sql driver

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store/internal/record"
	"github.com/veetbot/veetbrowser/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// BusyTimeout is how long a statement waits for another process's write
// before it fails.
const BusyTimeout = 10 * time.Second

// readConns bounds the connections that read (listing, replay).
const readConns = 4

// DefaultPath is $XDG_DATA_HOME/veetbrowser/artifacts.db, or
// ~/.local/share/veetbrowser/artifacts.db when XDG_DATA_HOME is unset or
// not absolute.
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errcode.Wrap(record.Unavailable, err, "no default artifact store: neither XDG_DATA_HOME nor HOME is set")
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "veetbrowser", "artifacts.db"), nil
}

// Store is an artifact store in one SQLite file.
type Store struct {
	write *sql.DB // one connection: the process's writes queue here, not in SQLite's busy loop
	read  *sql.DB
}

// Open opens (creating it, and its directory, if needed) the store at path
// and migrates its schema. A new file is readable by its owner only.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsRune(path, 0) {
		return nil, errcode.New(errcode.InvalidArgument, "the artifact store needs a file path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "the artifact store's path is not usable")
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, record.Fail(err, "the artifact store's directory cannot be created")
	}
	// Created here first so that SQLite, which takes the mode of the
	// database for its WAL files too, never makes it world-readable. Only
	// a new file is opened: closing a descriptor of a file SQLite holds
	// would drop its locks.
	if f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return nil, record.Fail(err, "the artifact store's file cannot be created")
	}
	if err := migrate(ctx, dsn(abs, "immediate")); err != nil {
		return nil, err
	}
	write, err := sql.Open("sqlite", dsn(abs, "immediate"))
	if err != nil {
		return nil, record.Fail(err, "the artifact store cannot be opened")
	}
	write.SetMaxOpenConns(1)
	read, err := sql.Open("sqlite", dsn(abs, "deferred"))
	if err != nil {
		write.Close()
		return nil, record.Fail(err, "the artifact store cannot be opened")
	}
	read.SetMaxOpenConns(readConns)
	return &Store{write: write, read: read}, nil
}

// dsn is the connection string of the file at abs. Every transaction of
// the writer begins IMMEDIATE: it takes the write lock first, so two
// processes never deadlock upgrading a read to a write. It sets nothing
// that writes the file (see prepare), so that a file this process may only
// read still opens.
func dsn(abs, txlock string) string {
	q := url.Values{}
	q.Set("_busy_timeout", timeoutMillis())
	q.Set("_synchronous", "FULL")
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", txlock)
	return (&url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}).String()
}

func timeoutMillis() string { return strconv.FormatInt(BusyTimeout.Milliseconds(), 10) }

// Close closes the store.
func (s *Store) Close() error {
	return errors.Join(s.write.Close(), s.read.Close())
}

// CreateSession records a session.
func (s *Store) CreateSession(ctx context.Context, sess record.Session) error {
	if err := record.CheckSession(&sess); err != nil {
		return err
	}
	start := micros(sess.StartedAt)
	_, err := s.write.ExecContext(ctx, `INSERT INTO sessions (id, started_at, last_at, tool_version, budget, grant_json, surface)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, sess.ID, start, start, sess.Version, sess.Budget, string(sess.Grant), sess.Surface)
	return sqlstore.Created(err, isConstraint)
}

// Intent records a call about to be dispatched.
func (s *Store) Intent(ctx context.Context, c record.Call) (int64, error) {
	return s.insert(ctx, c, sqlstore.AsIntent)
}

// Record writes a whole call.
func (s *Store) Record(ctx context.Context, c record.Call) (int64, error) {
	return s.insert(ctx, c, sqlstore.AsComplete)
}

// insert readies c, takes the session's next sequence number and writes c,
// in one transaction.
func (s *Store) insert(ctx context.Context, c record.Call, ready sqlstore.Ready) (seq int64, err error) {
	r, err := ready(&c)
	if err != nil {
		return 0, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		row := tx.QueryRowContext(ctx, `UPDATE sessions SET last_seq = last_seq + 1, last_at = max(last_at, ?), bytes = bytes + ?
			WHERE id = ? RETURNING last_seq`, micros(c.StartedAt), c.Size(), c.SessionID)
		if err := row.Scan(&seq); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return record.NoSession()
			}
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO calls (session_id, seq, tool, arguments, started_at, status,
			duration_ns, outcome, observation, action, view_sha256, view_bytes, projection)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			append([]any{c.SessionID, seq, c.Tool, string(c.Arguments), micros(c.StartedAt), c.Status}, r.Args()...)...)
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
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		done, err := tx.ExecContext(ctx, `UPDATE calls SET status = 'complete', duration_ns = ?, outcome = ?,
			observation = ?, action = ?, view_sha256 = ?, view_bytes = ?, projection = ?
			WHERE session_id = ? AND seq = ? AND status = 'intent'`,
			append(r.Args(), sessionID, seq)...)
		if err != nil {
			return err
		}
		if n, err := done.RowsAffected(); err != nil || n != 1 {
			return errors.Join(err, record.NoIntent())
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET bytes = bytes + ? WHERE id = ?`, res.Size(), sessionID)
		return err
	})
	return sqlstore.Failed(err, "the call's result could not be recorded")
}

func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Session reads a session record.
func (s *Store) Session(ctx context.Context, id string) (record.Session, error) {
	if err := record.CheckID(id); err != nil {
		return record.Session{}, err
	}
	return sqlstore.ReadSession(s.read.QueryRowContext(ctx,
		`SELECT id, started_at, tool_version, budget, grant_json, surface FROM sessions WHERE id = ?`, id), fromMicros)
}

// Calls reads a session's calls in sequence order.
func (s *Store) Calls(ctx context.Context, sessionID string, fn func(record.Call) error) error {
	if _, err := s.Session(ctx, sessionID); err != nil {
		return err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT session_id, seq, tool, arguments, started_at, status, duration_ns, outcome,
		observation, action, view_sha256, view_bytes, projection FROM calls WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return record.Fail(err, "the session's calls could not be read")
	}
	defer rows.Close()
	return sqlstore.EachCall(rows, fromMicros, fn)
}

// Sessions lists sessions, newest first, with their call and outcome counts.
func (s *Store) Sessions(ctx context.Context, opts record.ListOptions) ([]record.Summary, error) {
	limit, err := record.Limit(opts)
	if err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `WITH s AS (SELECT * FROM sessions ORDER BY started_at DESC, id DESC LIMIT ?)
		SELECT s.id, s.started_at, s.last_at, s.tool_version, s.budget, s.grant_json, s.surface, s.bytes,
			CASE WHEN c.status = 'intent' THEN 'intent' ELSE c.outcome END, count(c.seq)
		FROM s LEFT JOIN calls c ON c.session_id = s.id
		GROUP BY s.id, 9 ORDER BY s.started_at DESC, s.id DESC`, limit)
	if err != nil {
		return nil, record.Fail(err, "the sessions could not be listed")
	}
	defer rows.Close()
	return sqlstore.Summaries(rows, fromMicros)
}

// Prune removes whole sessions by age of their last write, then the oldest
// until at most maxBytes of records remain; then it hands free pages back
// to the file system.
func (s *Store) Prune(ctx context.Context, olderThan time.Duration, maxBytes int64) (record.Pruned, error) {
	if err := sqlstore.CheckRetention(olderThan, maxBytes); err != nil {
		return record.Pruned{}, err
	}
	var p record.Pruned
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, last_at, bytes FROM sessions ORDER BY last_at DESC, id DESC`)
		if err != nil {
			return err
		}
		all, err := sqlstore.Extents(rows, fromMicros)
		rows.Close()
		if err != nil {
			return err
		}
		p, err = sqlstore.Prune(all, olderThan, maxBytes, func(id string) (int64, error) {
			res, err := tx.ExecContext(ctx, `DELETE FROM calls WHERE session_id = ?`, id)
			if err != nil {
				return 0, err
			}
			n, _ := res.RowsAffected()
			_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
			return n, err
		})
		return err
	})
	if err != nil {
		return record.Pruned{}, sqlstore.Failed(err, "the artifact store could not be pruned")
	}
	if p.Sessions > 0 {
		// Best effort: the records are gone either way.
		s.write.ExecContext(ctx, `PRAGMA incremental_vacuum`)
	}
	return p, nil
}

// sqliteConstraint is SQLITE_CONSTRAINT, the primary code of every
// constraint violation.
const sqliteConstraint = 19

func isConstraint(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqliteConstraint
}

func micros(t time.Time) int64 { return record.Timestamp(t).UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
