// Package sqlstore is the artifact store in a SQL database, written once
// for both SQL stores: what they refuse to write and the errors they
// share (check.go), their statements, readying a call for its write, the
// columns a result is stored as, the assembly of records from rows, the
// prune and the wrapping of errors. Each store supplies only what differs:
// its driver (how it runs a statement and a transaction), its dialect,
// its encoding of time, its test for a duplicate key and its locking.
package sqlstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
)

// readyFunc checks a call and readies it for its write: it sets the
// status and returns the columns of its result.
type readyFunc func(c *store.Call) (columns, error)

// asIntent readies c to be written as an intent: no result.
func asIntent(c *store.Call) (columns, error) {
	if err := checkCall(c); err != nil {
		return columns{}, err
	}
	c.Status = store.StatusIntent
	c.Result = store.Result{}
	return columns{}, nil
}

// asComplete readies c, its result included, to be written as a whole
// call.
func asComplete(c *store.Call) (columns, error) {
	if err := checkCall(c); err != nil {
		return columns{}, err
	}
	if err := checkResult(&c.Result); err != nil {
		return columns{}, err
	}
	c.Status = store.StatusComplete
	return resultColumns(&c.Result)
}

// completion checks what Complete is given and returns the result's
// columns.
func completion(sessionID string, res *store.Result) (columns, error) {
	if err := checkID(sessionID); err != nil {
		return columns{}, err
	}
	if err := checkResult(res); err != nil {
		return columns{}, err
	}
	return resultColumns(res)
}

// created is the error of a session's insert, nil when it was written;
// duplicate tells the driver's error for an id already recorded.
func created(err error, duplicate func(error) bool) error {
	switch {
	case err == nil:
		return nil
	case duplicate(err):
		return sessionExists
	}
	return Fail(err, "the session could not be recorded")
}

// columns are a result as the stores keep it: JSON as text, absent as
// NULL (all of them while the call is an intent).
type columns struct {
	duration, outcome, viewBytes             any
	observation, action, viewSHA, projection any
}

// resultColumns are the columns of a complete call's result.
func resultColumns(r *store.Result) (columns, error) {
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

// args are the values of the columns duration_ns, outcome, observation,
// action, view_sha256, view_bytes and projection, in this order.
func (c columns) args() []any {
	return []any{c.duration, c.outcome, c.observation, c.action, c.viewSHA, c.viewBytes, c.projection}
}

func text(doc json.RawMessage) any {
	if doc == nil {
		return nil
	}
	return string(doc)
}

// Row is one row of a query, as both drivers hand it.
type Row interface {
	Scan(dest ...any) error
}

// Rows are the rows of a query; the caller closes them.
type Rows interface {
	Row
	Next() bool
	Err() error
	Close()
}

// A time column scans into a T, which at turns into the UTC time it
// stands for: each store keeps its own encoding of time.

// readSession reads a session from a row of the columns id, started_at,
// tool_version, budget, grant_json and surface.
func readSession[T any](row Row, at func(T) time.Time) (store.Session, error) {
	var s store.Session
	var start T
	var grant []byte
	err := row.Scan(&s.ID, &start, &s.Version, &s.Budget, &grant, &s.Surface)
	// pgx's ErrNoRows is also sql.ErrNoRows.
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, noSession
	}
	if err != nil {
		return store.Session{}, Fail(err, "the session could not be read")
	}
	s.StartedAt, s.Grant = at(start), json.RawMessage(grant)
	return s, nil
}

// eachCall hands fn, one at a time, the calls of rows of the columns
// session_id, seq, tool, arguments, started_at, status, duration_ns,
// outcome, observation, action, view_sha256, view_bytes and projection.
func eachCall[T any](rows Rows, at func(T) time.Time, fn func(store.Call) error) error {
	for rows.Next() {
		var c store.Call
		var start T
		var args, observation, action, viewSHA, projection []byte
		var duration, viewBytes *int64
		var outcome *string
		if err := rows.Scan(&c.SessionID, &c.Seq, &c.Tool, &args, &start, &c.Status, &duration, &outcome,
			&observation, &action, &viewSHA, &viewBytes, &projection); err != nil {
			return Fail(err, "the session's calls could not be read")
		}
		c.Arguments, c.StartedAt = args, at(start)
		c.Observation, c.Action = raw(observation), raw(action)
		if duration != nil {
			c.Duration = time.Duration(*duration)
		}
		if outcome != nil {
			c.Outcome = *outcome
		}
		if viewSHA != nil && viewBytes != nil && projection != nil {
			c.View = &store.View{SHA256: viewSHA, Bytes: int(*viewBytes)}
			c.Projection = new(store.Projection)
			if err := json.Unmarshal(projection, c.Projection); err != nil {
				return Fail(err, "a call's projection inputs could not be read")
			}
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return Fail(err, "the session's calls could not be read")
	}
	return nil
}

func raw(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return json.RawMessage(b)
}

// summaries assembles a listing from rows of the columns id, started_at,
// last_at, tool_version, budget, grant_json, surface, bytes, outcome (open
// intents as "intent") and the count of calls with that outcome, the rows
// of one session together.
func summaries[T any](rows Rows, at func(T) time.Time) ([]store.Summary, error) {
	var list []store.Summary
	for rows.Next() {
		var sum store.Summary
		var start, last T
		var grant []byte
		var outcome *string
		var n int64
		if err := rows.Scan(&sum.ID, &start, &last, &sum.Version, &sum.Budget, &grant, &sum.Surface, &sum.Bytes,
			&outcome, &n); err != nil {
			return nil, Fail(err, "the sessions could not be listed")
		}
		if len(list) == 0 || list[len(list)-1].ID != sum.ID {
			sum.StartedAt, sum.LastAt, sum.Grant = at(start), at(last), json.RawMessage(grant)
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
		return nil, Fail(err, "the sessions could not be listed")
	}
	return list, nil
}

// extents reads sessions as retention sees them from rows of the columns
// id, last_at and bytes.
func extents[T any](rows Rows, at func(T) time.Time) ([]extent, error) {
	var all []extent
	for rows.Next() {
		var x extent
		var last T
		if err := rows.Scan(&x.ID, &last, &x.Bytes); err != nil {
			return nil, err
		}
		x.LastAt = at(last)
		all = append(all, x)
	}
	return all, rows.Err()
}

// extent is a session as retention sees it.
type extent struct {
	ID     string
	LastAt time.Time // the latest start of its records
	Bytes  int64
}

// prunable returns the sessions a Prune removes, from all sessions newest
// first: those whose last write is before now-olderThan (olderThan > 0),
// then, keeping the newest whose bytes add up to at most maxBytes
// (maxBytes > 0), all older ones.
func prunable(newestFirst []extent, now time.Time, olderThan time.Duration, maxBytes int64) []extent {
	var prune []extent
	var kept int64
	full := false // a newer session did not fit: every older one goes
	cutoff := now.Add(-olderThan)
	for _, x := range newestFirst {
		if maxBytes > 0 && kept+x.Bytes > maxBytes {
			full = true
		}
		if full || olderThan > 0 && x.LastAt.Before(cutoff) {
			prune = append(prune, x)
			continue
		}
		kept += x.Bytes
	}
	return prune
}

// Timestamp is t as the stores keep it: UTC, microseconds.
func Timestamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// checkRetention refuses negative retention limits.
func checkRetention(olderThan time.Duration, maxBytes int64) error {
	if olderThan < 0 || maxBytes < 0 {
		return errcode.New(errcode.InvalidArgument, "retention limits cannot be negative")
	}
	return nil
}

// prune removes, with remove, the sessions of newestFirst that retention
// selects (see prunable) and counts what went. remove deletes one
// session, its calls and its blobs and returns how many of each it held.
func prune(newestFirst []extent, olderThan time.Duration, maxBytes int64,
	remove func(id string) (calls, blobs int64, err error)) (store.Pruned, error) {
	var p store.Pruned
	for _, x := range prunable(newestFirst, time.Now(), olderThan, maxBytes) {
		calls, blobs, err := remove(x.ID)
		if err != nil {
			return store.Pruned{}, err
		}
		p.Sessions++
		p.Calls += int(calls)
		p.Blobs += int(blobs)
		p.Bytes += x.Bytes
	}
	return p, nil
}

// failed keeps a coded error as it is and wraps any other as Unavailable.
func failed(err error, msg string) error {
	if err == nil {
		return nil
	}
	var coded *errcode.Error
	if errors.As(err, &coded) && coded.Code != store.Unavailable {
		return err
	}
	return Fail(err, "%s", msg)
}
