package sqlitestore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/veetbot/veetbrowser/internal/tempdir"
	"github.com/veetbot/veetbrowser/store/internal/schema"
	"github.com/veetbot/veetbrowser/store/internal/sqlstore"
)

// versionTable is goose's table of applied migrations.
const versionTable = "schema_version"

// migrate applies the schema migrations the file lacks. Processes and
// goroutines that open the same file at once take turns (migrationLock);
// each migration is one transaction.
func migrate(ctx context.Context, dsn string) error {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return sqlstore.Fail(err, "the artifact store cannot be opened")
	}
	defer db.Close()
	if err := prepareWaiting(ctx, db); err != nil {
		return sqlstore.Fail(err, "the artifact store cannot be opened")
	}
	fsys, err := schema.Migrations(schema.SQLite)
	if err != nil {
		return sqlstore.Fail(err, "the artifact store's schema is missing")
	}
	locker, err := newMigrationLock()
	if err != nil {
		return sqlstore.Fail(err, "the artifact store cannot be migrated")
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys, goose.WithTableName(versionTable),
		goose.WithDisableGlobalRegistry(true), goose.WithSessionLocker(locker))
	if err != nil {
		return sqlstore.Fail(err, "the artifact store cannot be migrated")
	}
	// Only a migration writes: a file this process may only read still
	// opens, for reading.
	pending, err := p.HasPending(ctx)
	if err != nil {
		return sqlstore.Fail(err, "the artifact store's schema could not be read")
	}
	if !pending {
		return nil
	}
	if _, err := p.Up(ctx); err != nil {
		return sqlstore.Fail(err, "the artifact store's schema could not be migrated")
	}
	return nil
}

// prepareWaiting prepares the file, waiting for other openers: SQLite
// answers a switch to WAL that races another one with SQLITE_BUSY at once,
// without its busy timeout (it would deadlock), so the switch is tried
// again until BusyTimeout has passed.
func prepareWaiting(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(BusyTimeout)
	for {
		err := prepare(ctx, db)
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// prepare puts a file that is not yet in WAL mode (a new one) into it,
// with incremental auto-vacuum, so that pruning can hand pages back: that
// setting holds only if made before the file's first page is written.
func prepare(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode == "wal" {
		return err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return err
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode %q, not wal", mode)
	}
	return nil
}

// migrationLock is a goose session lock for SQLite, which has no lock that
// outlives a transaction: a row in a lock table, inserted by the holder and
// deleted on unlock. A holder that died (WAL needs every process on one
// host, so its process id tells) loses the row to the next opener.
type migrationLock struct {
	owner tempdir.Owner
	token string // tells the goroutines of one process apart
}

func newMigrationLock() (*migrationLock, error) {
	owner, err := tempdir.OwnerOf(os.Getpid())
	if err != nil {
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	return &migrationLock{owner: owner, token: hex.EncodeToString(b[:])}, nil
}

// lockPoll is how often a waiting opener looks at the lock again.
const lockPoll = 20 * time.Millisecond

func (l *migrationLock) SessionLock(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migration_lock (
		id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, start TEXT NOT NULL, token TEXT NOT NULL) STRICT`); err != nil {
		return err
	}
	for {
		res, err := conn.ExecContext(ctx, `INSERT INTO migration_lock (id, pid, start, token) VALUES (1, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, l.owner.PID, l.owner.Start, l.token)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		var holder tempdir.Owner
		var token string
		err = conn.QueryRowContext(ctx, `SELECT pid, start, token FROM migration_lock WHERE id = 1`).Scan(&holder.PID, &holder.Start, &token)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err == nil && !holder.Alive() {
			// The holder died mid-migration; its transaction was rolled
			// back, so the schema is as it left it.
			if _, err := conn.ExecContext(ctx, `DELETE FROM migration_lock WHERE id = 1 AND pid = ? AND start = ? AND token = ?`,
				holder.PID, holder.Start, token); err != nil {
				return err
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

func (l *migrationLock) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `DELETE FROM migration_lock WHERE id = 1 AND token = ?`, l.token)
	return err
}
