// Package sqlitestore is the artifact store in one embedded SQLite file
// (modernc.org/sqlite, no cgo): WAL, synchronous=FULL so that a record is on
// disk before its call returns, a busy timeout for other processes sharing
// the file, and writes serialized through one connection.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // and its "sqlite" database/sql driver

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/internal/sqlstore"
)

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
			return "", errcode.Wrap(store.Unavailable, err, "no default artifact store: neither XDG_DATA_HOME nor HOME is set")
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "veetbrowser", "artifacts.db"), nil
}

// OpenDefault opens the store at DefaultPath: the runtime's store when it
// is given none.
func OpenDefault(ctx context.Context) (*Store, error) {
	path, err := DefaultPath()
	if err != nil {
		return nil, err
	}
	return Open(ctx, path)
}

// Store is an artifact store in one SQLite file.
// Its methods, those of store.Store, are the shared SQL store's (Prune
// then vacuums).
type Store struct {
	*sqlStore
	write  *sql.DB // one connection: the process's writes queue here, not in SQLite's busy loop
	writer *writer
	read   *sql.DB
}

var _ store.Store = (*Store)(nil)

// sqlStore is the store's logic; its time columns hold microseconds
// since the Unix epoch.
type sqlStore = sqlstore.Store[int64]

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
		return nil, sqlstore.Fail(err, "the artifact store's directory cannot be created")
	}
	// Created here first so that SQLite, which takes the mode of the
	// database for its WAL files too, never makes it world-readable. Only
	// a new file is opened: closing a descriptor of a file SQLite holds
	// would drop its locks.
	if f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return nil, sqlstore.Fail(err, "the artifact store's file cannot be created")
	}
	if err := migrate(ctx, dsn(abs, "immediate")); err != nil {
		return nil, err
	}
	write, err := sql.Open("sqlite", dsn(abs, "immediate"))
	if err != nil {
		return nil, sqlstore.Fail(err, "the artifact store cannot be opened")
	}
	write.SetMaxOpenConns(1)
	read, err := sql.Open("sqlite", dsn(abs, "deferred"))
	if err != nil {
		write.Close()
		return nil, sqlstore.Fail(err, "the artifact store cannot be opened")
	}
	read.SetMaxOpenConns(readConns)
	w := &writer{conn: conn{write}, db: write, prepared: map[string]*sql.Stmt{}}
	return &Store{write: write, writer: w, read: read, sqlStore: sqlstore.New(sqlstore.Config[int64]{
		Write: w,
		Read:  conn{read},
		Dialect: sqlstore.Dialect{Sessions: "sessions", Calls: "calls", Leases: "leases", Blobs: "blobs",
			Greatest: "max"},
		Stamp:     micros,
		At:        fromMicros,
		Duplicate: isConstraint,
	})}, nil
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
	return errors.Join(s.writer.close(), s.write.Close(), s.read.Close())
}

// Prune removes whole sessions by age of their last write, then the oldest
// until at most maxBytes of records remain; then it hands free pages back
// to the file system.
func (s *Store) Prune(ctx context.Context, olderThan time.Duration, maxBytes int64) (store.Pruned, error) {
	p, err := s.sqlStore.Prune(ctx, olderThan, maxBytes)
	if err == nil && p.Sessions > 0 {
		// Best effort: the records are gone either way.
		s.write.ExecContext(ctx, `PRAGMA incremental_vacuum`)
	}
	return p, err
}

// querier is what a pool and a transaction of database/sql both run
// statements with.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// conn runs the store's statements with database/sql.
type conn struct{ q querier }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return c.q.QueryRowContext(ctx, query, args...)
}

func (c conn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := c.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return closer{rows}, nil
}

// closer is rows whose Close reports nothing: the rows' error is read
// before they are closed.
type closer struct{ *sql.Rows }

func (r closer) Close() { r.Rows.Close() }

// writer runs the store's statements and transactions on the writing
// connection. A statement run in a transaction is prepared once and
// reused by every later transaction: parsing it again was about a
// seventh of the CPU a small page's record costs. Its first run is not prepared: the transaction
// holds the one connection, so the statement is prepared once the
// transaction has ended.
type writer struct {
	conn
	db       *sql.DB
	mu       sync.Mutex
	prepared map[string]*sql.Stmt // by query; nil until prepared
}

func (w *writer) InTx(ctx context.Context, fn func(sqlstore.DB) error) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(txConn{tx: tx, w: w}); err != nil {
		tx.Rollback()
		return err
	}
	err = tx.Commit()
	w.prepareNew(ctx)
	return err
}

// stmt is query's prepared statement, or nil when it is not prepared yet
// (it is after the transaction).
func (w *writer) stmt(query string) *sql.Stmt {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.prepared[query]
	if !ok {
		w.prepared[query] = nil
	}
	return st
}

// prepareNew prepares the statements first run since the last call. The
// lock is not held while preparing, which waits for the connection.
func (w *writer) prepareNew(ctx context.Context) {
	w.mu.Lock()
	var todo []string
	for q, st := range w.prepared {
		if st == nil {
			todo = append(todo, q)
		}
	}
	w.mu.Unlock()
	for _, q := range todo {
		st, err := w.db.PrepareContext(ctx, q)
		if err != nil {
			continue // run unprepared, and tried again after its next run
		}
		w.mu.Lock()
		if w.prepared[q] == nil {
			w.prepared[q], st = st, nil
		}
		w.mu.Unlock()
		if st != nil {
			st.Close() // another transaction prepared it first
		}
	}
}

// close closes the prepared statements.
func (w *writer) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for q, st := range w.prepared {
		if st != nil {
			errs = append(errs, st.Close())
		}
		delete(w.prepared, q)
	}
	return errors.Join(errs...)
}

// txConn runs the statements of one transaction, each prepared statement
// through it.
type txConn struct {
	tx *sql.Tx
	w  *writer
}

// on is q in the transaction: its prepared statement, else the
// transaction itself.
func (c txConn) on(ctx context.Context, query string) conn {
	if st := c.w.stmt(query); st != nil {
		return conn{prepared{c.tx.StmtContext(ctx, st)}}
	}
	return conn{c.tx}
}

func (c txConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return c.on(ctx, query).Exec(ctx, query, args...)
}

func (c txConn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return c.on(ctx, query).QueryRow(ctx, query, args...)
}

func (c txConn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return c.on(ctx, query).Query(ctx, query, args...)
}

// prepared runs one prepared statement as a querier: the query text it is
// given is that statement's.
type prepared struct{ st *sql.Stmt }

func (p prepared) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return p.st.ExecContext(ctx, args...)
}

func (p prepared) QueryRowContext(ctx context.Context, _ string, args ...any) *sql.Row {
	return p.st.QueryRowContext(ctx, args...)
}

func (p prepared) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return p.st.QueryContext(ctx, args...)
}

// SQLite's primary result codes: SQLITE_BUSY, and SQLITE_CONSTRAINT, the
// code of every constraint violation.
const (
	sqliteBusy       = 5
	sqliteConstraint = 19
)

func isConstraint(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqliteConstraint
}

// isBusy tells SQLite's "database is locked" (SQLITE_BUSY).
func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqliteBusy
}

func micros(t time.Time) int64 { return sqlstore.Timestamp(t).UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
