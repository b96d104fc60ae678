package store

import (
	"context"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
)

// None is the spec that names Discard (see store/storespec).
const None = "none"

// Discard records nothing: the explicit choice not to keep artifacts. Its
// writes succeed; its reads and its leases fail, saying why.
var Discard Store = discard{}

type discard struct{}

func (discard) CreateSession(context.Context, Session) error { return nil }
func (discard) Intent(context.Context, Call) (int64, error)  { return 0, nil }
func (discard) Complete(context.Context, string, int64, Result) error {
	return nil
}
func (discard) Record(context.Context, Call) (int64, error)  { return 0, nil }
func (discard) PutBlob(context.Context, Blob) (int64, error) { return 0, nil }

func (discard) Session(context.Context, string) (Session, error) {
	return Session{}, notRecorded()
}
func (discard) Calls(context.Context, string, func(Call) error) error { return notRecorded() }
func (discard) Sessions(context.Context, ListOptions) ([]Summary, error) {
	return nil, nil
}
func (discard) Blobs(context.Context, string) ([]BlobInfo, error) {
	return nil, notRecorded()
}
func (discard) Blob(context.Context, string, int64) (Blob, error) {
	return Blob{}, notRecorded()
}

func (discard) Prune(context.Context, time.Duration, int64) (Pruned, error) {
	return Pruned{}, nil
}

func (discard) AcquireLease(context.Context, Lease) (Lease, error) { return Lease{}, noLeases() }
func (discard) RenewLease(context.Context, string, time.Time) (Lease, error) {
	return Lease{}, noLeases()
}
func (discard) ReleaseLease(context.Context, string) error   { return noLeases() }
func (discard) Lease(context.Context, string) (Lease, error) { return Lease{}, noLeases() }
func (discard) ExpiredLeases(context.Context, time.Time) ([]Lease, error) {
	return nil, noLeases()
}

func (discard) Close() error { return nil }

// noLeases is the error of every lease method without a store: leases
// are shared through a database.
func noLeases() error {
	return errcode.New(errcode.ArtifactUnavailable, "leases need a store (store %q keeps nothing)", None)
}

func notRecorded() error {
	return errcode.New(errcode.InvalidArgument, "artifacts are not recorded (store %q)", None)
}
