package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/store"
)

// DB runs statements, on a pool or in a transaction, with the driver's
// placeholders.
type DB interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Pool runs statements and transactions.
type Pool interface {
	DB
	// InTx runs fn in a transaction that commits when fn returns nil and
	// rolls back otherwise.
	InTx(ctx context.Context, fn func(tx DB) error) error
}

// Dialect is what the SQL text of the stores differs in.
type Dialect struct {
	Sessions, Calls, Leases, Blobs string // the table names
	Greatest                       string // the function that picks the larger of two values
	Text                           string // appended to a JSON column to read it as text
	Numbered                       bool   // placeholders are $1, $2, … rather than ?
}

// Config is what a store supplies: its connections, its dialect and its
// encoding of time.
type Config[T any] struct {
	Write   Pool // every write and transaction
	Read    DB   // the reads outside a transaction
	Dialect Dialect
	// Stamp encodes a time for a time column; At decodes it in UTC.
	Stamp func(time.Time) T
	At    func(T) time.Time
	// Duplicate tells the driver's error for a key already taken (a
	// session's or a lease's id).
	Duplicate func(error) bool
	// LockPrune, when set, runs first in the prune's transaction.
	LockPrune func(ctx context.Context, tx DB) error
}

// Store is an artifact store in a SQL database; T is the type a time
// column is read and written as.
type Store[T any] struct {
	cfg Config[T]
	sql statements
}

// statements are the SQL of the store in its dialect.
type statements struct {
	createSession, nextSeq, insertCall, complete, addBytes string
	session, calls, sessions                               string
	extents, deleteCalls, deleteSession                    string
	leases                                                 leaseStatements
	blobs                                                  blobStatements
}

// New returns the store that c describes.
func New[T any](c Config[T]) *Store[T] {
	d := c.Dialect
	names := strings.NewReplacer("{sessions}", d.Sessions, "{calls}", d.Calls, "{leases}", d.Leases, "{blobs}", d.Blobs,
		"{greatest}", d.Greatest, "{text}", d.Text)
	q := func(query string) string {
		query = names.Replace(query)
		if d.Numbered {
			query = numbered(query)
		}
		return query
	}
	return &Store[T]{cfg: c, sql: statements{
		createSession: q(`INSERT INTO {sessions} (id, started_at, last_at, tool_version, budget, grant_json, surface)
			VALUES (?, ?, ?, ?, ?, ?, ?)`),
		nextSeq: q(`UPDATE {sessions} SET last_seq = last_seq + 1, last_at = {greatest}(last_at, ?), bytes = bytes + ?
			WHERE id = ? RETURNING last_seq`),
		insertCall: q(`INSERT INTO {calls} (session_id, seq, tool, arguments, started_at, status,
			duration_ns, outcome, observation, action, view_sha256, view_bytes, projection)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		complete: q(`UPDATE {calls} SET status = 'complete', duration_ns = ?, outcome = ?,
			observation = ?, action = ?, view_sha256 = ?, view_bytes = ?, projection = ?
			WHERE session_id = ? AND seq = ? AND status = 'intent'`),
		addBytes: q(`UPDATE {sessions} SET bytes = bytes + ? WHERE id = ?`),
		session: q(`SELECT id, started_at, tool_version, budget, grant_json{text}, surface
			FROM {sessions} WHERE id = ?`),
		calls: q(`SELECT session_id, seq, tool, arguments{text}, started_at, status, duration_ns, outcome,
			observation{text}, action{text}, view_sha256, view_bytes, projection{text}
			FROM {calls} WHERE session_id = ? ORDER BY seq`),
		// The session's columns are all grouped by: PostgreSQL does not
		// see that the id of a CTE's row determines the rest.
		sessions: q(`WITH s AS (SELECT * FROM {sessions} ORDER BY started_at DESC, id DESC LIMIT ?)
			SELECT s.id, s.started_at, s.last_at, s.tool_version, s.budget, s.grant_json{text}, s.surface, s.bytes,
				CASE WHEN c.status = 'intent' THEN 'intent' ELSE c.outcome END AS outcome, count(c.seq)
			FROM s LEFT JOIN {calls} c ON c.session_id = s.id
			GROUP BY s.id, s.started_at, s.last_at, s.tool_version, s.budget, s.grant_json{text}, s.surface, s.bytes, 9
			ORDER BY s.started_at DESC, s.id DESC`),
		extents:       q(`SELECT id, last_at, bytes FROM {sessions} ORDER BY last_at DESC, id DESC`),
		deleteCalls:   q(`DELETE FROM {calls} WHERE session_id = ?`),
		deleteSession: q(`DELETE FROM {sessions} WHERE id = ?`),
		leases:        newLeaseStatements(q),
		blobs:         newBlobStatements(q),
	}}
}

// numbered turns the ? placeholders of query into $1, $2, …
func numbered(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// CreateSession records a session.
func (s *Store[T]) CreateSession(ctx context.Context, sess store.Session) error {
	if err := checkSession(&sess); err != nil {
		return err
	}
	start := s.cfg.Stamp(sess.StartedAt)
	_, err := s.cfg.Write.Exec(ctx, s.sql.createSession,
		sess.ID, start, start, sess.Version, sess.Budget, string(sess.Grant), sess.Surface)
	return created(err, s.cfg.Duplicate)
}

// Intent records a call about to be dispatched.
func (s *Store[T]) Intent(ctx context.Context, c store.Call) (int64, error) {
	return s.insert(ctx, c, asIntent)
}

// Record writes a whole call.
func (s *Store[T]) Record(ctx context.Context, c store.Call) (int64, error) {
	return s.insert(ctx, c, asComplete)
}

// insert readies c, takes the session's next sequence number (the update
// of the session's row orders concurrent writers of one session) and
// writes c, in one transaction.
func (s *Store[T]) insert(ctx context.Context, c store.Call, ready readyFunc) (seq int64, err error) {
	r, err := ready(&c)
	if err != nil {
		return 0, err
	}
	start := s.cfg.Stamp(c.StartedAt)
	err = s.cfg.Write.InTx(ctx, func(tx DB) error {
		err := tx.QueryRow(ctx, s.sql.nextSeq, start, c.Size(), c.SessionID).Scan(&seq)
		// pgx's ErrNoRows is also sql.ErrNoRows.
		if errors.Is(err, sql.ErrNoRows) {
			return noSession
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, s.sql.insertCall,
			append([]any{c.SessionID, seq, c.Tool, string(c.Arguments), start, c.Status}, r.args()...)...)
		return err
	})
	if err != nil {
		return 0, failed(err, "the call could not be recorded")
	}
	return seq, nil
}

// Complete records the result of an open intent.
func (s *Store[T]) Complete(ctx context.Context, sessionID string, seq int64, res store.Result) error {
	r, err := completion(sessionID, &res)
	if err != nil {
		return err
	}
	err = s.cfg.Write.InTx(ctx, func(tx DB) error {
		done, err := tx.Exec(ctx, s.sql.complete, append(r.args(), sessionID, seq)...)
		if err != nil {
			return err
		}
		if done != 1 {
			return noIntent
		}
		_, err = tx.Exec(ctx, s.sql.addBytes, res.Size(), sessionID)
		return err
	})
	return failed(err, "the call's result could not be recorded")
}

// Session reads a session record.
func (s *Store[T]) Session(ctx context.Context, id string) (store.Session, error) {
	if err := checkID(id); err != nil {
		return store.Session{}, err
	}
	return readSession(s.cfg.Read.QueryRow(ctx, s.sql.session, id), s.cfg.At)
}

// Calls reads a session's calls in sequence order.
func (s *Store[T]) Calls(ctx context.Context, sessionID string, fn func(store.Call) error) error {
	if _, err := s.Session(ctx, sessionID); err != nil {
		return err
	}
	rows, err := s.cfg.Read.Query(ctx, s.sql.calls, sessionID)
	if err != nil {
		return Fail(err, "the session's calls could not be read")
	}
	defer rows.Close()
	return eachCall(rows, s.cfg.At, fn)
}

// Sessions lists sessions, newest first, with their call and outcome counts.
func (s *Store[T]) Sessions(ctx context.Context, opts store.ListOptions) ([]store.Summary, error) {
	limit, err := listLimit(opts)
	if err != nil {
		return nil, err
	}
	rows, err := s.cfg.Read.Query(ctx, s.sql.sessions, limit)
	if err != nil {
		return nil, Fail(err, "the sessions could not be listed")
	}
	defer rows.Close()
	return summaries(rows, s.cfg.At)
}

// Prune removes whole sessions, their calls and blobs, by age of their last
// write, then the oldest until at most maxBytes of records (JSON and blob
// bytes) remain, in one transaction.
func (s *Store[T]) Prune(ctx context.Context, olderThan time.Duration, maxBytes int64) (store.Pruned, error) {
	if err := checkRetention(olderThan, maxBytes); err != nil {
		return store.Pruned{}, err
	}
	var p store.Pruned
	err := s.cfg.Write.InTx(ctx, func(tx DB) error {
		if s.cfg.LockPrune != nil {
			if err := s.cfg.LockPrune(ctx, tx); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, s.sql.extents)
		if err != nil {
			return err
		}
		all, err := extents(rows, s.cfg.At)
		rows.Close()
		if err != nil {
			return err
		}
		p, err = prune(all, olderThan, maxBytes, func(id string) (calls, blobs int64, err error) {
			if blobs, err = tx.Exec(ctx, s.sql.blobs.deleteAll, id); err != nil {
				return 0, 0, err
			}
			if calls, err = tx.Exec(ctx, s.sql.deleteCalls, id); err != nil {
				return 0, 0, err
			}
			_, err = tx.Exec(ctx, s.sql.deleteSession, id)
			return calls, blobs, err
		})
		return err
	})
	if err != nil {
		return store.Pruned{}, failed(err, "the artifact store could not be pruned")
	}
	return p, nil
}
