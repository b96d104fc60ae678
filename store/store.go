// Package store records every tool call durably (docs/artifacts.md): the session, and
// for each call its sanitized arguments, outcome, whole canonical
// observation, action record, and the digest and projection inputs of the
// model view that was returned, so that replay can re-derive every view.
//
// The package defines the records (record.go) and the interfaces of their
// users, each as narrow as its user needs: the runtime writes through a
// Recorder, replay and the viewer read through a Reader, retention runs a
// Pruner, and the sidecar holds its leases through Leases. Store is all of
// them, as the SQL stores implement it: store/sqlitestore (embedded
// SQLite, the default) and store/pgstore (PostgreSQL), which import this
// package. Opening a store by a spec (a SQLite file path, a postgres://
// URL, "none") is store/storespec's, so that a program that never uses
// PostgreSQL does not link its driver. Discard records nothing.
//
// Every write is one transaction. Writes that change a page are recorded
// ahead: Intent before input is dispatched, Complete after; a crash in
// between leaves the intent.
//
// Every failure to read or write is an error with code Unavailable
// ("artifact_unavailable"); bad input is invalid_argument.
package store

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"io"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
)

// Store is a durable artifact store: every use of the records and the
// leases, and Close. Its methods are safe for concurrent use, also by
// several processes sharing one database.
type Store interface {
	Recorder
	Reader
	Pruner
	Leases
	io.Closer
}

// Recorder writes the records of sessions and their calls: what the
// runtime needs of a store. A custom store for the runtime implements
// only this.
type Recorder interface {
	// CreateSession records a session before its first call.
	CreateSession(ctx context.Context, s Session) error
	// Intent records a call before its input is dispatched, with status
	// intent, and returns its sequence number. A caller that cannot record
	// the intent must not dispatch.
	Intent(ctx context.Context, c Call) (seq int64, err error)
	// Complete records the result of an intent; an intent completes once.
	Complete(ctx context.Context, sessionID string, seq int64, r Result) error
	// Record writes a whole call (status complete) and returns its
	// sequence number.
	Record(ctx context.Context, c Call) (seq int64, err error)
	// PutBlob stores b, binary data (a screenshot) tied to a recorded
	// call, in one transaction with its session's byte count, and returns
	// its id. Data over MaxBlobBytes (or meta over MaxBlobMetaBytes) is
	// too_large; a session or call the store does not hold is not_found;
	// data that is not of its media type, and other malformed input,
	// invalid_argument.
	PutBlob(ctx context.Context, b Blob) (id int64, err error)
}

// Reader reads recorded sessions, their calls and their blobs: what
// replay and the viewer need. The blob methods' not_found covers an
// unknown session, call or blob alike.
type Reader interface {
	// Session reads a session record.
	Session(ctx context.Context, id string) (Session, error)
	// Calls reads a session's calls in sequence order, one at a time.
	Calls(ctx context.Context, sessionID string, fn func(Call) error) error
	// Sessions lists sessions, newest first.
	Sessions(ctx context.Context, opts ListOptions) ([]Summary, error)
	// Blobs lists a session's blobs without their data, by sequence
	// number, then id.
	Blobs(ctx context.Context, sessionID string) ([]BlobInfo, error)
	// Blob reads a blob of a session; an id of another session's blob is
	// not_found, as a missing one is.
	Blob(ctx context.Context, sessionID string, id int64) (Blob, error)
}

// Pruner enforces retention (--retain, --retain-bytes).
type Pruner interface {
	// Prune removes whole sessions, with their calls and blobs: those
	// whose last write is older than olderThan (0: no age limit), then the
	// oldest until the records hold at most maxBytes (0: no size limit) of
	// JSON and blob data (Blob.Size).
	Prune(ctx context.Context, olderThan time.Duration, maxBytes int64) (Pruned, error)
}

// Leases are the sidecar's: a tenant's profile is held by at most one
// live lease (its expiry after now, the store's reading of Go's clock),
// decided by the database's own locking, so that serving processes
// sharing one database agree. Times are the caller's; ids, tenants,
// profiles and holders have 1 to MaxIDBytes bytes of UTF-8.
type Leases interface {
	// AcquireLease takes l.Profile of l.Tenant for l.Holder until
	// l.Expires and returns the lease as stored. An expired lease of the
	// profile is replaced; a live one fails with errcode.LeaseHeld.
	AcquireLease(ctx context.Context, l Lease) (Lease, error)
	// RenewLease moves a live lease's expiry to expires; a lease that is
	// not live (expired, released, replaced, unknown) fails with
	// errcode.LeaseExpired.
	RenewLease(ctx context.Context, id string, expires time.Time) (Lease, error)
	// ReleaseLease deletes a lease; releasing an unknown id is no error.
	ReleaseLease(ctx context.Context, id string) error
	// Lease reads a live lease; one that is not live fails with
	// errcode.LeaseExpired.
	Lease(ctx context.Context, id string) (Lease, error)
	// ExpiredLeases deletes every lease expired at now and returns them.
	ExpiredLeases(ctx context.Context, now time.Time) ([]Lease, error)
}

// NewSessionID returns a fresh random session id.
func NewSessionID() string {
	var b [15]byte
	rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))
}

// Redacted stands for text a caller typed: its length and a keyed digest,
// never the text.
type Redacted struct {
	Length int    `json:"length"` // UTF-8 bytes
	Digest string `json:"digest"` // "hmac-sha256:" and 64 hex digits
}

// MinRedactionKey is the shortest key RedactText accepts.
const MinRedactionKey = 16

// RedactText returns what is recorded for typed text: its length and its
// HMAC-SHA256 under key. The digest lets a holder of the key check whether
// two records typed the same text, and, being keyed, keeps a reader of the
// database from confirming guesses; the key is kept apart from the store.
func RedactText(key []byte, text string) (Redacted, error) {
	if len(key) < MinRedactionKey {
		return Redacted{}, errcode.New(errcode.InvalidArgument, "the redaction key needs at least %d bytes", MinRedactionKey)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(text))
	return Redacted{Length: len(text), Digest: "hmac-sha256:" + hex.EncodeToString(mac.Sum(nil))}, nil
}
