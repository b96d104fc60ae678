// Package pgstore is the artifact store in PostgreSQL (pgx/v5), for many
// runtimes sharing one store.
package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/internal/schema"
	"github.com/veetbot/veetbrowser/store/internal/sqlstore"
)

// versionTable is goose's table of applied migrations.
const versionTable = "veetbrowser_schema_version"

// migrationLockID is the advisory lock key every opener takes around
// migration ("veetbrow" in ASCII).
const migrationLockID int64 = 0x7665657462726f77

// Store is an artifact store in a PostgreSQL database.
// Its methods, those of store.Store, are the shared SQL store's.
type Store struct {
	*sqlStore
	pool *pgxpool.Pool
}

var _ store.Store = (*Store)(nil)

// sqlStore is the store's logic; its time columns are timestamptz.
type sqlStore = sqlstore.Store[time.Time]

// Open connects to the database dsn names and migrates its schema.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parser's error can quote the DSN, password included.
		return nil, errcode.New(errcode.InvalidArgument, "the PostgreSQL connection string is not valid")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, sqlstore.Fail(err, "the artifact store cannot be opened")
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	db := conn{pool}
	return &Store{pool: pool, sqlStore: sqlstore.New(sqlstore.Config[time.Time]{
		Write: pooled{conn: db, pool: pool},
		Read:  db,
		Dialect: sqlstore.Dialect{Sessions: "veetbrowser_sessions", Calls: "veetbrowser_calls",
			Leases: "veetbrowser_leases", Blobs: "veetbrowser_blobs", Greatest: "greatest", Text: "::text", Numbered: true},
		Stamp:     sqlstore.Timestamp,
		At:        utc,
		Duplicate: isUniqueViolation,
		LockPrune: lockPrune,
	})}, nil
}

// migrate applies the schema migrations the database lacks, under a
// session advisory lock, so that openers take turns.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	fsys, err := schema.Migrations(schema.PostgreSQL)
	if err != nil {
		return sqlstore.Fail(err, "the artifact store's schema is missing")
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithTableName(versionTable),
		goose.WithDisableGlobalRegistry(true), goose.WithSessionLocker(advisoryLock{}))
	if err != nil {
		return sqlstore.Fail(err, "the artifact store cannot be migrated")
	}
	if _, err := p.Up(ctx); err != nil {
		return sqlstore.Fail(err, "the artifact store's schema could not be migrated")
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

// lockPrune makes the prunes of several runtimes take turns; writers are
// not held up.
func lockPrune(ctx context.Context, tx sqlstore.DB) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockID+1)
	return err
}

// querier is what a pool and a transaction of pgx both run statements
// with.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// conn runs the store's statements with pgx.
type conn struct{ q querier }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return c.q.QueryRow(ctx, query, args...)
}

func (c conn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return c.q.Query(ctx, query, args...)
}

// pooled runs the store's statements and transactions on the pool.
type pooled struct {
	conn
	pool *pgxpool.Pool
}

func (p pooled) InTx(ctx context.Context, fn func(sqlstore.DB) error) error {
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error { return fn(conn{tx}) })
}

// utc is a timestamptz column's time in UTC.
func utc(t time.Time) time.Time { return t.UTC() }

// uniqueViolation is PostgreSQL's SQLSTATE for a duplicate key.
const uniqueViolation = "23505"

func isUniqueViolation(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == uniqueViolation
}
