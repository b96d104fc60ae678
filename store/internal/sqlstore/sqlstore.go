// Package sqlstore is what the SQL artifact stores share beyond their
// dialect: readying a call for its write, the columns a result is stored
// as, the assembly of records from rows, the prune loop and the wrapping
// of errors. Each store keeps its SQL text, placeholders, transactions,
// locking, time encoding and driver.
package sqlstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store/internal/record"
)

// Ready checks a call and readies it for its write: it sets the status and
// returns the columns of its result.
type Ready func(c *record.Call) (Columns, error)

// AsIntent readies c to be written as an intent: no result.
func AsIntent(c *record.Call) (Columns, error) {
	if err := record.CheckCall(c); err != nil {
		return Columns{}, err
	}
	c.Status = record.StatusIntent
	c.Result = record.Result{}
	return Columns{}, nil
}

// AsComplete readies c, its result included, to be written as a whole
// call.
func AsComplete(c *record.Call) (Columns, error) {
	if err := record.CheckCall(c); err != nil {
		return Columns{}, err
	}
	if err := record.CheckResult(&c.Result); err != nil {
		return Columns{}, err
	}
	c.Status = record.StatusComplete
	return resultColumns(&c.Result)
}

// Completion checks what Complete is given and returns the result's
// columns.
func Completion(sessionID string, res *record.Result) (Columns, error) {
	if err := record.CheckID(sessionID); err != nil {
		return Columns{}, err
	}
	if err := record.CheckResult(res); err != nil {
		return Columns{}, err
	}
	return resultColumns(res)
}

// Created is the error of a session's insert, nil when it was written;
// duplicate tells the driver's error for an id already recorded.
func Created(err error, duplicate func(error) bool) error {
	switch {
	case err == nil:
		return nil
	case duplicate(err):
		return record.SessionExists()
	}
	return record.Fail(err, "the session could not be recorded")
}

// Columns are a result as the stores keep it: JSON as text, absent as
// NULL (all of them while the call is an intent).
type Columns struct {
	duration, outcome, viewBytes             any
	observation, action, viewSHA, projection any
}

// resultColumns are the columns of a complete call's result.
func resultColumns(r *record.Result) (Columns, error) {
	c := Columns{duration: int64(r.Duration), outcome: r.Outcome,
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

// Args are the values of the columns duration_ns, outcome, observation,
// action, view_sha256, view_bytes and projection, in this order.
func (c Columns) Args() []any {
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

// Rows are the rows of a query, as both drivers hand them; the caller
// closes them.
type Rows interface {
	Row
	Next() bool
	Err() error
}

// A time column scans into a T, which at turns into the UTC time it
// stands for: each store keeps its own encoding of time.

// ReadSession reads a session from a row of the columns id, started_at,
// tool_version, budget, grant_json and surface.
func ReadSession[T any](row Row, at func(T) time.Time) (record.Session, error) {
	var s record.Session
	var start T
	var grant []byte
	err := row.Scan(&s.ID, &start, &s.Version, &s.Budget, &grant, &s.Surface)
	// pgx's ErrNoRows is also sql.ErrNoRows.
	if errors.Is(err, sql.ErrNoRows) {
		return record.Session{}, record.NoSession()
	}
	if err != nil {
		return record.Session{}, record.Fail(err, "the session could not be read")
	}
	s.StartedAt, s.Grant = at(start), json.RawMessage(grant)
	return s, nil
}

// EachCall hands fn, one at a time, the calls of rows of the columns
// session_id, seq, tool, arguments, started_at, status, duration_ns,
// outcome, observation, action, view_sha256, view_bytes and projection.
func EachCall[T any](rows Rows, at func(T) time.Time, fn func(record.Call) error) error {
	for rows.Next() {
		var c record.Call
		var start T
		var args, observation, action, viewSHA, projection []byte
		var duration, viewBytes *int64
		var outcome *string
		if err := rows.Scan(&c.SessionID, &c.Seq, &c.Tool, &args, &start, &c.Status, &duration, &outcome,
			&observation, &action, &viewSHA, &viewBytes, &projection); err != nil {
			return record.Fail(err, "the session's calls could not be read")
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
			c.View = &record.View{SHA256: viewSHA, Bytes: int(*viewBytes)}
			c.Projection = new(record.Projection)
			if err := json.Unmarshal(projection, c.Projection); err != nil {
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

func raw(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return json.RawMessage(b)
}

// Summaries assembles a listing from rows of the columns id, started_at,
// last_at, tool_version, budget, grant_json, surface, bytes, outcome (open
// intents as "intent") and the count of calls with that outcome, the rows
// of one session together.
func Summaries[T any](rows Rows, at func(T) time.Time) ([]record.Summary, error) {
	var list []record.Summary
	for rows.Next() {
		var sum record.Summary
		var start, last T
		var grant []byte
		var outcome *string
		var n int64
		if err := rows.Scan(&sum.ID, &start, &last, &sum.Version, &sum.Budget, &grant, &sum.Surface, &sum.Bytes,
			&outcome, &n); err != nil {
			return nil, record.Fail(err, "the sessions could not be listed")
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
		return nil, record.Fail(err, "the sessions could not be listed")
	}
	return list, nil
}

// Extents reads sessions as retention sees them from rows of the columns
// id, last_at and bytes.
func Extents[T any](rows Rows, at func(T) time.Time) ([]record.Extent, error) {
	var all []record.Extent
	for rows.Next() {
		var x record.Extent
		var last T
		if err := rows.Scan(&x.ID, &last, &x.Bytes); err != nil {
			return nil, err
		}
		x.LastAt = at(last)
		all = append(all, x)
	}
	return all, rows.Err()
}

// CheckRetention refuses negative retention limits.
func CheckRetention(olderThan time.Duration, maxBytes int64) error {
	if olderThan < 0 || maxBytes < 0 {
		return errcode.New(errcode.InvalidArgument, "retention limits cannot be negative")
	}
	return nil
}

// Prune removes, with remove, the sessions of newestFirst that retention
// selects (see record.Prunable) and counts what went. remove deletes one
// session and its calls and returns how many calls it held.
func Prune(newestFirst []record.Extent, olderThan time.Duration, maxBytes int64,
	remove func(id string) (calls int64, err error)) (record.Pruned, error) {
	var p record.Pruned
	for _, x := range record.Prunable(newestFirst, time.Now(), olderThan, maxBytes) {
		calls, err := remove(x.ID)
		if err != nil {
			return record.Pruned{}, err
		}
		p.Sessions++
		p.Calls += int(calls)
		p.Bytes += x.Bytes
	}
	return p, nil
}

// Failed keeps a coded error as it is and wraps any other as Unavailable.
func Failed(err error, msg string) error {
	if err == nil {
		return nil
	}
	var coded *errcode.Error
	if errors.As(err, &coded) && coded.Code != record.Unavailable {
		return err
	}
	return record.Fail(err, "%s", msg)
}
