// Package errcode gives every failure a caller can see a stable code and a
// one-line public message, and keeps the internal cause apart for the log.
//
// The public message is safe to show to a model or a remote client; the
// wrapped error may hold browser or file-system detail. It is reachable
// through Unwrap for the surfaces to log (see Log) and never appears in
// Error, so no surface can return it by accident.
package errcode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Code is a stable, machine-readable failure class.
type Code string

// The codes a caller can see (docs/errors.md).
const (
	InvalidArgument      Code = "invalid_argument"
	StaleReference       Code = "stale_reference"
	ForeignReference     Code = "foreign_reference"
	UnknownReference     Code = "unknown_reference"
	ExpansionUnsupported Code = "expansion_unsupported"
	ForeignOrigin        Code = "foreign_origin"
	NavigationCancelled  Code = "navigation_cancelled"
	NavigationFailed     Code = "navigation_failed"
	CaptureFailed        Code = "capture_failed"
	PageCrashed          Code = "page_crashed"
	DocumentChanged      Code = "document_changed"
	ObservationTooLarge  Code = "observation_too_large"
	NotActionable        Code = "not_actionable"
	ApprovalRequired     Code = "approval_required"
	ActionUncertain      Code = "action_uncertain"
	UploadRefused        Code = "upload_refused"
	Unauthorized         Code = "unauthorized"
	BrowserUnavailable   Code = "browser_unavailable"
	Timeout              Code = "timeout"
	Cancelled            Code = "cancelled"
	Internal             Code = "internal"
	// TooManySessions: a server's cap on live sessions is reached; ending a
	// session (or its idle timeout) makes room.
	TooManySessions Code = "too_many_sessions"
	// ArtifactUnavailable: the artifact store could not record the call (or
	// be read); a call whose record cannot be written never reports
	// success, and one whose intent cannot be written is not dispatched.
	ArtifactUnavailable Code = "artifact_unavailable"
	// LeaseRequired: a sidecar's page route was called without the
	// profile's current lease; LeaseExpired: the lease ran out (or was
	// released) and its browser was closed; LeaseHeld: another live lease
	// holds the profile.
	LeaseRequired Code = "lease_required"
	LeaseExpired  Code = "lease_expired"
	LeaseHeld     Code = "lease_held"
	// NotFound: no such profile for this tenant (another tenant's is not
	// found either, so that names do not leak).
	NotFound Code = "not_found"
	// TooLarge: a request body over its cap.
	TooLarge Code = "too_large"
	// ApprovalRefused: a person refused the action in the control room.
	ApprovalRefused Code = "approval_refused"
	// HumanInControl: a person holds the page (browser_handoff): the
	// agent's page calls fail until they hand it back.
	HumanInControl Code = "human_in_control"
	// HandoffUnavailable: browser_handoff where no person can take over
	// (no control room).
	HandoffUnavailable Code = "handoff_unavailable"
)

// Bounds of what a public message carries: a message never grows with what
// a caller sent.
const (
	// QuoteRunes is how much of a caller's input Quote keeps.
	QuoteRunes = 64
	// MaxMessageBytes bounds a public message, whatever it quotes.
	MaxMessageBytes = 1024
	// MaxLoggedBytes bounds an internal cause in the log: a decoder's error
	// can quote a whole oversized argument.
	MaxLoggedBytes = 4096
)

// Error is a failure with a public code and message and an optional
// internal cause.
type Error struct {
	Code    Code
	Message string // public, one line
	Err     error  // internal detail, for logs only
}

// Error is the public line only: "code: message". The internal cause is
// reached through Unwrap, by the logs.
func (e *Error) Error() string {
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// LogValue shows the code, the public message and the internal cause.
func (e *Error) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("code", string(e.Code)), slog.String("message", e.Message)}
	if e.Err != nil {
		attrs = append(attrs, slog.String("cause", cut(e.Err.Error(), MaxLoggedBytes)))
	}
	return slog.GroupValue(attrs...)
}

// New returns an error with a code and a public message. Caller input in
// the message goes through Quote.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: bound(fmt.Sprintf(format, args...))}
}

// Wrap returns an error with a code, a public message and an internal cause.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: bound(fmt.Sprintf(format, args...)), Err: err}
}

// Quote returns s as a quoted Go string, cut to its first QuoteRunes runes
// with an ellipsis: the one way a public message mentions what a caller
// sent, so a 10 MB key never comes back in a 10 MB error.
func Quote(s string) string {
	if utf8.RuneCountInString(s) <= QuoteRunes {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == QuoteRunes {
			return strconv.Quote(s[:i] + "…")
		}
		n++
	}
	return strconv.Quote(s)
}

// bound keeps a message on one line and within MaxMessageBytes, cut at a
// rune boundary with an ellipsis.
func bound(msg string) string {
	if strings.ContainsAny(msg, "\r\n") {
		msg = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(msg)
	}
	return cut(msg, MaxMessageBytes)
}

// cut keeps s within max bytes, cut at a rune boundary with an ellipsis.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Public returns the code and public message of err. An error without a code
// becomes internal, a context error becomes timeout or cancelled; neither
// reveals its text.
func Public(err error) (Code, string) {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Code, bound(e.Message)
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout, "the operation timed out"
	case errors.Is(err, context.Canceled):
		return Cancelled, "the operation was cancelled"
	default:
		return Internal, "internal error"
	}
}

// Of returns the code of err (see Public).
func Of(err error) Code {
	c, _ := Public(err)
	return c
}

// Log records a failure a surface is about to answer with its public form:
// an error without a code at error level (its text is all there is), one
// with an internal cause at warn level, a plain refusal (bad input, a stale
// reference) at info level. A nil logger logs nothing.
func Log(ctx context.Context, logger *slog.Logger, msg string, err error, args ...any) {
	if logger == nil || err == nil {
		return
	}
	var e *Error
	level := slog.LevelInfo
	switch {
	case errors.As(err, &e):
		if e.Err != nil {
			level = slog.LevelWarn
		}
		args = append(args, slog.Any("error", e))
		if outer := err.Error(); outer != e.Error() {
			args = append(args, slog.String("context", cut(outer, MaxLoggedBytes)))
		}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		args = append(args, slog.String("error", cut(err.Error(), MaxLoggedBytes)))
	default:
		level = slog.LevelError
		args = append(args, slog.String("error", cut(err.Error(), MaxLoggedBytes)))
	}
	logger.Log(ctx, level, msg, args...)
}
