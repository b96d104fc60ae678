package sqlstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
)

// What the stores refuse to write, checked before any statement runs, and
// the errors they share.

// viewSHA256Len is the length of a view's digest.
const viewSHA256Len = 32

// checkSession refuses a session record the store must not write.
func checkSession(s *store.Session) error {
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

// checkCall refuses a call the store must not write as an intent.
func checkCall(c *store.Call) error {
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

// checkResult refuses an incomplete or malformed result.
func checkResult(r *store.Result) error {
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

// checkID refuses a malformed session id.
func checkID(id string) error {
	if id == "" || len(id) > store.MaxIDBytes {
		return errcode.New(errcode.InvalidArgument, "a session id has 1 to %d bytes", store.MaxIDBytes)
	}
	return nil
}

// checkLease refuses a lease the store must not write.
func checkLease(l *store.Lease) error {
	for _, f := range []struct{ what, s string }{
		{"id", l.ID}, {"tenant", l.Tenant}, {"profile", l.Profile}, {"holder", l.Holder},
	} {
		if err := checkLeaseText(f.what, f.s); err != nil {
			return err
		}
	}
	return checkExpiry(l.Expires)
}

// checkLeaseID refuses a malformed lease id.
func checkLeaseID(id string) error { return checkLeaseText("id", id) }

// checkExpiry refuses a missing expiry (or time of reaping).
func checkExpiry(t time.Time) error {
	if t.IsZero() {
		return errcode.New(errcode.InvalidArgument, "a lease needs its expiry time")
	}
	return nil
}

// checkLeaseText refuses what a text column cannot hold as given: both
// databases refuse invalid UTF-8, PostgreSQL a NUL byte.
func checkLeaseText(what, s string) error {
	if s == "" || len(s) > store.MaxIDBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return errcode.New(errcode.InvalidArgument, "a lease's %s has 1 to %d bytes of UTF-8 text without NUL", what, store.MaxIDBytes)
	}
	return nil
}

func checkName(what, s string, required bool) error {
	if required && s == "" || len(s) > store.MaxNameBytes {
		return errcode.New(errcode.InvalidArgument, "a record's %s has 1 to %d bytes", what, store.MaxNameBytes)
	}
	return nil
}

func checkJSON(what string, doc json.RawMessage, required bool) error {
	if doc == nil && !required {
		return nil
	}
	if len(doc) > store.MaxJSONBytes {
		return errcode.New(errcode.InvalidArgument, "a record's %s is over %d bytes", what, store.MaxJSONBytes)
	}
	if !validJSON(doc) {
		return errcode.New(errcode.InvalidArgument, "a record's %s is not valid UTF-8 JSON", what)
	}
	return nil
}

// validJSON tells whether doc is one JSON value in UTF-8, in one pass
// (jsontext checks the UTF-8 as it reads, where json.Valid needs
// utf8.Valid besides and is ~2.7 times slower): a record's observation
// is checked on every call's write. Names may repeat in an object, as
// JSON allows (RFC 8259) and json.Valid accepts; an escape must be of a
// Unicode character, which json.Marshal's output always is.
func validJSON(doc []byte) bool {
	return jsontext.Value(doc).IsValid(jsontext.AllowDuplicateNames(true))
}

// checkBlob refuses a blob the store must not write: data over
// MaxBlobBytes is too_large, anything else malformed invalid_argument.
func checkBlob(b *store.Blob) error {
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
	if len(b.Data) > store.MaxBlobBytes {
		return errcode.New(errcode.TooLarge, "a blob has at most %d bytes", store.MaxBlobBytes)
	}
	if len(b.Data) == 0 {
		return errcode.New(errcode.InvalidArgument, "a blob needs its data")
	}
	if !hasSignature(b.MediaType, b.Data) {
		return errcode.New(errcode.InvalidArgument, "a blob is %q or %q data, and its media type says which", store.MediaJPEG, store.MediaPNG)
	}
	if b.Meta == nil {
		return nil
	}
	if len(b.Meta) > store.MaxBlobMetaBytes {
		return errcode.New(errcode.TooLarge, "a blob's metadata has at most %d bytes", store.MaxBlobMetaBytes)
	}
	if !validJSON(b.Meta) || !isObject(b.Meta) {
		return errcode.New(errcode.InvalidArgument, "a blob's metadata is a UTF-8 JSON object")
	}
	return nil
}

// hasSignature tells whether data begins as its media type's files do, so
// that what is served later as an image is one.
func hasSignature(mediaType string, data []byte) bool {
	switch mediaType {
	case store.MediaPNG:
		return bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n"))
	case store.MediaJPEG:
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
	if len(s) > store.MaxNameBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return errcode.New(errcode.InvalidArgument, "a %s has at most %d bytes of UTF-8 text without NUL", what, store.MaxNameBytes)
	}
	return nil
}

// listLimit is the listing limit opts ask for, refused when out of range.
func listLimit(opts store.ListOptions) (int, error) {
	switch {
	case opts.Limit == 0:
		return store.DefaultLimit, nil
	case opts.Limit < 0 || opts.Limit > store.MaxListLimit:
		return 0, errcode.New(errcode.InvalidArgument, "a listing's limit is between 1 and %d", store.MaxListLimit)
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
	return errcode.Wrap(store.Unavailable, err, format, args...)
}

// The refusals the stores share, each a fixed code and message. None
// carries a cause, so one value serves every return.
var (
	// noSession is the error for a session id the store does not hold.
	noSession = errcode.New(errcode.InvalidArgument, "no recorded session has that id")
	// noIntent is the error for a Complete without its open intent.
	noIntent = errcode.New(errcode.InvalidArgument, "no open intent has that session id and sequence number")
	// noBlobSession is the blob methods' error for a session id the store
	// does not hold.
	noBlobSession = errcode.New(errcode.NotFound, "no recorded session has that id")
	// noBlobCall is the error for a blob of a call the store does not hold.
	noBlobCall = errcode.New(errcode.NotFound, "no recorded call has that session id and sequence number")
	// noBlob is the error for a blob id the session does not hold (another
	// session's is not found either).
	noBlob = errcode.New(errcode.NotFound, "the session has no blob with that id")
	// sessionExists is the error for a session id the store already holds.
	sessionExists = errcode.New(errcode.InvalidArgument, "a session with that id is already recorded")
	// leaseHeld is the error for an acquire of a profile another live
	// lease holds.
	leaseHeld = errcode.New(errcode.LeaseHeld, "another live lease holds this profile")
	// leaseExpired is the error for a lease id that is not live: it
	// expired, was released, was taken over after it expired, or never
	// existed.
	leaseExpired = errcode.New(errcode.LeaseExpired, "the lease has expired or was released")
	// leaseExists is the error for a lease id the store already holds.
	leaseExists = errcode.New(errcode.InvalidArgument, "a lease with that id already exists")
)
