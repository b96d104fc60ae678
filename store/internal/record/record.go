// Package record holds the artifact record types, their validation and the
// store's errors. The store package re-exports them; the implementations
// use them from here so that store.Open can construct them without an
// import cycle.
package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
)

// Unavailable is the code of every failure to read or write the artifact
// store: a call whose record cannot be written must not report success.
const Unavailable = errcode.ArtifactUnavailable

// Call statuses. A write's intent is recorded before its input is
// dispatched; a crash before Complete leaves the status at StatusIntent.
const (
	StatusIntent   = "intent"
	StatusComplete = "complete"
)

// OutcomeOK is the outcome of a call that returned a result; any other
// outcome is an error code.
const OutcomeOK = "ok"

// Bounds on what a caller may hand the store.
const (
	MaxIDBytes    = 128
	MaxNameBytes  = 128     // tool, version, surface and outcome names
	MaxJSONBytes  = 8 << 20 // one JSON document of a record
	MaxListLimit  = 10000
	DefaultLimit  = 100
	viewSHA256Len = 32
	// MaxBlobBytes bounds one blob's data; screenshots are capped well
	// below it before they reach the store.
	MaxBlobBytes = 1 << 20
	// MaxBlobMetaBytes bounds a blob's metadata (what was masked, …).
	MaxBlobMetaBytes = 4 << 10
)

// Blob media types: the only ones a blob is stored as.
const (
	MediaJPEG = "image/jpeg"
	MediaPNG  = "image/png"
)

// Session is a recorded session: one page pinned to one tool version.
type Session struct {
	ID        string
	StartedAt time.Time // stored in UTC with microsecond precision
	Version   string    // the tool version the session is pinned to
	Budget    int       // the session's inline byte budget
	Grant     json.RawMessage
	Surface   string // cli, mcp, http, suite, library
}

// Call is one recorded tool call.
type Call struct {
	SessionID string
	Seq       int64 // assigned by the store: 1, 2, … per session
	Tool      string
	// Arguments as the caller sanitized them: typed text is replaced by
	// RedactText's {length, digest}; the store never sees it.
	Arguments json.RawMessage
	StartedAt time.Time
	Status    string // StatusIntent or StatusComplete
	Result
}

// Result is what Complete adds to an intent, and what Record writes with
// the call in one go.
type Result struct {
	Duration time.Duration
	Outcome  string // OutcomeOK or an error code; "" while an intent
	// Observation is the whole canonical observation; nil when the call
	// returned none.
	Observation json.RawMessage
	// Action is the action record (verified label facts, approval
	// decision, postconditions); nil for navigate and observe.
	Action json.RawMessage
	// View is the digest and size of the model view returned, and
	// Projection the inputs that re-derive it; both nil when no view was
	// returned.
	View       *View
	Projection *Projection
}

// View identifies the model view that was returned.
type View struct {
	SHA256 []byte `json:"sha256"` // 32 bytes
	Bytes  int    `json:"bytes"`
}

// Projection is what a model view was made from, besides the canonical
// observation: replay calls projection.Project with the options the tool
// version defines for these inputs.
type Projection struct {
	Version string `json:"version"`
	Budget  int    `json:"budget"`
	// 1.1.0 observe arguments that page the view.
	ElementOffset *int `json:"element_offset,omitempty"`
	TextOffset    *int `json:"text_offset,omitempty"`
	// Action: the postconditions of the act or upload that led to the
	// observation, as the view shows them.
	Action *projection.Outcome `json:"action,omitempty"`
	// Withheld: the view echoed the agent's own draft, which is typed text
	// and is withheld from the stored observation. This is the digest and
	// size of the view re-derived from the observation as stored, which
	// replay compares with instead of View.
	Withheld *View `json:"withheld,omitempty"`
	// NextKey mints the view's reading continuation (tool version 1.6.0),
	// so that replay re-derives the same bytes.
	NextKey *observation.NextKey `json:"next_key,omitempty"`
}

// Lease is one tenant's exclusive hold on one of its profiles until
// Expires. At most one lease of a profile is live (Expires after now); a
// lease that expired is taken over by the next acquire.
type Lease struct {
	ID      string    // random and unguessable: the caller makes it
	Tenant  string    // whose profile it is
	Profile string    // the profile's name, unique within its tenant
	Holder  string    // the serving process that holds it
	Expires time.Time // stored in UTC with microsecond precision
}

// Blob is binary data tied to one recorded call of a session, such as a
// screenshot of the page revision the call saw.
type Blob struct {
	SessionID string
	Seq       int64  // the call's sequence number: the call is recorded first
	Kind      string // what it is, e.g. "screenshot"; 1 to MaxNameBytes bytes
	Revision  string // the observation revision it shows; may be empty
	MediaType string // MediaJPEG or MediaPNG, checked against the data's signature
	Data      []byte // 1 to MaxBlobBytes bytes
	// Meta is a JSON object of at most MaxBlobMetaBytes saying how the
	// data was made (what was masked, its scale, …); nil for none.
	Meta json.RawMessage
}

// BlobInfo is a blob in a listing: everything but its data.
type BlobInfo struct {
	ID        int64 // assigned by the store, unique in the store
	SessionID string
	Seq       int64
	Kind      string
	Revision  string
	MediaType string
	Bytes     int64 // the data's length
	Meta      json.RawMessage
}

// Size is the bytes a blob holds, counted for retention with the
// session's JSON.
func (b *Blob) Size() int64 { return int64(len(b.Data) + len(b.Meta)) }

// Summary is a session in a listing.
type Summary struct {
	Session
	Calls    int
	Outcomes map[string]int // by outcome; open intents count as "intent"
	Bytes    int64          // bytes of the session's records: their JSON and blobs (Blob.Size)
	LastAt   time.Time      // the session's last write
}

// ListOptions select a listing: newest sessions first.
type ListOptions struct {
	Limit int // 0: DefaultLimit
}

// Pruned counts what a Prune removed.
type Pruned struct {
	Sessions int
	Calls    int
	Blobs    int
	Bytes    int64
}

// Extent is a session as retention sees it.
type Extent struct {
	ID     string
	LastAt time.Time // the latest start of its records
	Bytes  int64
}

// Prunable returns the sessions a Prune removes, from all sessions newest
// first: those whose last write is before now-olderThan (olderThan > 0),
// then, keeping the newest whose bytes add up to at most maxBytes
// (maxBytes > 0), all older ones.
func Prunable(newestFirst []Extent, now time.Time, olderThan time.Duration, maxBytes int64) []Extent {
	var prune []Extent
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

// Size is the JSON bytes a call's record holds, counted for retention.
func (c *Call) Size() int64 {
	return int64(len(c.Arguments)) + c.Result.Size()
}

// Size is the JSON bytes a result holds, counted for retention.
func (r *Result) Size() int64 {
	n := int64(len(r.Observation) + len(r.Action))
	if r.Projection != nil {
		p, _ := json.Marshal(r.Projection)
		n += int64(len(p))
	}
	return n
}

// CheckSession refuses a session record the store must not write.
func CheckSession(s *Session) error {
	if err := checkID(s.ID); err != nil {
		return err
	}
	if s.StartedAt.IsZero() {
		return errcode.New(errcode.InvalidArgument, "a session record needs its start time")
	}
	if err := checkName("tool version", s.Version, true); err != nil {
		return err
	}
	if err := checkName("surface", s.Surface, true); err != nil {
		return err
	}
	if s.Budget <= 0 {
		return errcode.New(errcode.InvalidArgument, "a session record needs its budget")
	}
	return checkJSON("grant", s.Grant, true)
}

// CheckCall refuses a call the store must not write as an intent.
func CheckCall(c *Call) error {
	if err := checkID(c.SessionID); err != nil {
		return err
	}
	if err := checkName("tool", c.Tool, true); err != nil {
		return err
	}
	if c.StartedAt.IsZero() {
		return errcode.New(errcode.InvalidArgument, "a call record needs its start time")
	}
	return checkJSON("arguments", c.Arguments, true)
}

// CheckResult refuses an incomplete or malformed result.
func CheckResult(r *Result) error {
	if err := checkName("outcome", r.Outcome, true); err != nil {
		return err
	}
	if r.Duration < 0 {
		return errcode.New(errcode.InvalidArgument, "a call's duration cannot be negative")
	}
	if err := checkJSON("observation", r.Observation, false); err != nil {
		return err
	}
	if err := checkJSON("action record", r.Action, false); err != nil {
		return err
	}
	if (r.View == nil) != (r.Projection == nil) {
		return errcode.New(errcode.InvalidArgument, "a view's digest and its projection inputs are recorded together")
	}
	if r.View != nil {
		if len(r.View.SHA256) != viewSHA256Len || r.View.Bytes <= 0 {
			return errcode.New(errcode.InvalidArgument, "a view is recorded by its SHA-256 digest and its byte length")
		}
		if r.Observation == nil {
			return errcode.New(errcode.InvalidArgument, "a view is recorded with the observation it was made from")
		}
		if err := checkName("projection version", r.Projection.Version, true); err != nil {
			return err
		}
		if r.Projection.Budget <= 0 {
			return errcode.New(errcode.InvalidArgument, "a view's projection inputs need its budget")
		}
	}
	return nil
}

// CheckID refuses a malformed session id.
func CheckID(id string) error { return checkID(id) }

func checkID(id string) error {
	if id == "" || len(id) > MaxIDBytes {
		return errcode.New(errcode.InvalidArgument, "a session id has 1 to %d bytes", MaxIDBytes)
	}
	return nil
}

// CheckLease refuses a lease the store must not write.
func CheckLease(l *Lease) error {
	for _, f := range []struct{ what, s string }{
		{"id", l.ID}, {"tenant", l.Tenant}, {"profile", l.Profile}, {"holder", l.Holder},
	} {
		if err := checkLeaseText(f.what, f.s); err != nil {
			return err
		}
	}
	return CheckExpiry(l.Expires)
}

// CheckLeaseID refuses a malformed lease id.
func CheckLeaseID(id string) error { return checkLeaseText("id", id) }

// CheckExpiry refuses a missing expiry (or time of reaping).
func CheckExpiry(t time.Time) error {
	if t.IsZero() {
		return errcode.New(errcode.InvalidArgument, "a lease needs its expiry time")
	}
	return nil
}

// checkLeaseText refuses what a text column cannot hold as given: both
// databases refuse invalid UTF-8, PostgreSQL a NUL byte.
func checkLeaseText(what, s string) error {
	if s == "" || len(s) > MaxIDBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return errcode.New(errcode.InvalidArgument, "a lease's %s has 1 to %d bytes of UTF-8 text without NUL", what, MaxIDBytes)
	}
	return nil
}

func checkName(what, s string, required bool) error {
	if required && s == "" || len(s) > MaxNameBytes {
		return errcode.New(errcode.InvalidArgument, "a record's %s has 1 to %d bytes", what, MaxNameBytes)
	}
	return nil
}

func checkJSON(what string, doc json.RawMessage, required bool) error {
	if doc == nil && !required {
		return nil
	}
	if len(doc) > MaxJSONBytes {
		return errcode.New(errcode.InvalidArgument, "a record's %s is over %d bytes", what, MaxJSONBytes)
	}
	if !utf8.Valid(doc) || !json.Valid(doc) {
		return errcode.New(errcode.InvalidArgument, "a record's %s is not valid UTF-8 JSON", what)
	}
	return nil
}

// CheckBlob refuses a blob the store must not write: data over
// MaxBlobBytes is too_large, anything else malformed invalid_argument.
func CheckBlob(b *Blob) error {
	if err := checkID(b.SessionID); err != nil {
		return err
	}
	if b.Seq <= 0 {
		return errcode.New(errcode.InvalidArgument, "a blob belongs to a recorded call: its sequence number is 1 or more")
	}
	if err := checkText("blob's kind", b.Kind, true); err != nil {
		return err
	}
	if err := checkText("blob's revision", b.Revision, false); err != nil {
		return err
	}
	if len(b.Data) > MaxBlobBytes {
		return errcode.New(errcode.TooLarge, "a blob has at most %d bytes", MaxBlobBytes)
	}
	if len(b.Data) == 0 {
		return errcode.New(errcode.InvalidArgument, "a blob needs its data")
	}
	if !hasSignature(b.MediaType, b.Data) {
		return errcode.New(errcode.InvalidArgument, "a blob is %q or %q data, and its media type says which", MediaJPEG, MediaPNG)
	}
	if b.Meta == nil {
		return nil
	}
	if len(b.Meta) > MaxBlobMetaBytes {
		return errcode.New(errcode.TooLarge, "a blob's metadata has at most %d bytes", MaxBlobMetaBytes)
	}
	if !utf8.Valid(b.Meta) || !json.Valid(b.Meta) || !isObject(b.Meta) {
		return errcode.New(errcode.InvalidArgument, "a blob's metadata is a UTF-8 JSON object")
	}
	return nil
}

// hasSignature tells whether data begins as its media type's files do, so
// that what is served later as an image is one.
func hasSignature(mediaType string, data []byte) bool {
	switch mediaType {
	case MediaPNG:
		return bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n"))
	case MediaJPEG:
		return bytes.HasPrefix(data, []byte("\xff\xd8\xff"))
	}
	return false
}

func isObject(doc json.RawMessage) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(doc, &v) == nil && v != nil
}

// checkText refuses what a text column cannot hold as given (see
// checkLeaseText), or more than MaxNameBytes.
func checkText(what, s string, required bool) error {
	if required && s == "" {
		return errcode.New(errcode.InvalidArgument, "a %s is required", what)
	}
	if len(s) > MaxNameBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return errcode.New(errcode.InvalidArgument, "a %s has at most %d bytes of UTF-8 text without NUL", what, MaxNameBytes)
	}
	return nil
}

// Limit is the listing limit opts ask for, refused when out of range.
func Limit(opts ListOptions) (int, error) {
	switch {
	case opts.Limit == 0:
		return DefaultLimit, nil
	case opts.Limit < 0 || opts.Limit > MaxListLimit:
		return 0, errcode.New(errcode.InvalidArgument, "a listing's limit is between 1 and %d", MaxListLimit)
	}
	return opts.Limit, nil
}

// Fail wraps a database failure as Unavailable, keeping its cause for the
// log.
// A cancelled or expired context stays what it is.
func Fail(err error, format string, args ...any) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errcode.Wrap(Unavailable, err, format, args...)
}

// The refusals the stores share, each a fixed code and message. None
// carries a cause, so one value serves every return.
var (
	// NoSession is the error for a session id the store does not hold.
	NoSession = errcode.New(errcode.InvalidArgument, "no recorded session has that id")
	// NoIntent is the error for a Complete without its open intent.
	NoIntent = errcode.New(errcode.InvalidArgument, "no open intent has that session id and sequence number")
	// NoBlobSession is the blob methods' error for a session id the store
	// does not hold.
	NoBlobSession = errcode.New(errcode.NotFound, "no recorded session has that id")
	// NoBlobCall is the error for a blob of a call the store does not hold.
	NoBlobCall = errcode.New(errcode.NotFound, "no recorded call has that session id and sequence number")
	// NoBlob is the error for a blob id the session does not hold (another
	// session's is not found either).
	NoBlob = errcode.New(errcode.NotFound, "the session has no blob with that id")
	// SessionExists is the error for a session id the store already holds.
	SessionExists = errcode.New(errcode.InvalidArgument, "a session with that id is already recorded")
	// LeaseHeld is the error for an acquire of a profile another live
	// lease holds.
	LeaseHeld = errcode.New(errcode.LeaseHeld, "another live lease holds this profile")
	// LeaseExpired is the error for a lease id that is not live: it
	// expired, was released, was taken over after it expired, or never
	// existed.
	LeaseExpired = errcode.New(errcode.LeaseExpired, "the lease has expired or was released")
	// LeaseExists is the error for a lease id the store already holds.
	LeaseExists = errcode.New(errcode.InvalidArgument, "a lease with that id already exists")
)
