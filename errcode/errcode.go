// Package errcode gives every failure a caller can see a stable code and a
// one-line public message, and keeps the internal cause apart for the log.
//
// The public message is safe to show to a model or a remote client; the
// wrapped error may hold browser or file-system detail and is never returned
// over a surface.
package errcode

import (
	"context"
	"errors"
	"fmt"
)

// Code is a stable, machine-readable failure class.
type Code string

// The codes of SPEC §9.
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
	LeaseRequired        Code = "lease_required"
	LeaseExpired         Code = "lease_expired"
	Unauthorized         Code = "unauthorized"
	BrowserUnavailable   Code = "browser_unavailable"
	Timeout              Code = "timeout"
	Cancelled            Code = "cancelled"
	Internal             Code = "internal"
)

// Error is a failure with a public code and message and an optional
// internal cause.
type Error struct {
	Code    Code
	Message string // public, one line
	Err     error  // internal detail, for logs only
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with a code and a public message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with a code, a public message and an internal cause.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// Public returns the code and public message of err. An error without a code
// becomes internal, a context error becomes timeout or cancelled; neither
// reveals its text.
func Public(err error) (Code, string) {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Code, e.Message
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
