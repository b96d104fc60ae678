package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/veetbot/veetbrowser/store"
)

// Leases rely on the database's own locking, never on the process's: each
// method is one statement, so that several processes sharing a database
// agree on who holds a profile. A lease is live while its expiry is after
// now, Go's clock read by the store (Stamp makes both the store's time
// encoding); at its expiry it is gone.

// leaseStatements are the SQL of the lease methods.
type leaseStatements struct {
	acquire, renew, release, live, reap string
}

// leaseColumns are the columns a lease is read from, in readLease's order.
const leaseColumns = `id, tenant, profile, holder, expires`

func newLeaseStatements(q func(string) string) leaseStatements {
	return leaseStatements{
		// The insert or, when the profile's lease has expired, the
		// takeover is one statement: the database orders racing
		// acquirers, and the row comes back to the one that won only.
		acquire: q(`INSERT INTO {leases} (id, tenant, profile, holder, expires) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (tenant, profile) DO UPDATE
			SET id = excluded.id, holder = excluded.holder, expires = excluded.expires
			WHERE {leases}.expires <= ?
			RETURNING ` + leaseColumns),
		renew: q(`UPDATE {leases} SET expires = ? WHERE id = ? AND expires > ?
			RETURNING ` + leaseColumns),
		release: q(`DELETE FROM {leases} WHERE id = ?`),
		live:    q(`SELECT ` + leaseColumns + ` FROM {leases} WHERE id = ? AND expires > ?`),
		reap:    q(`DELETE FROM {leases} WHERE expires <= ? RETURNING ` + leaseColumns),
	}
}

// AcquireLease takes l's profile for l's holder until l.Expires, if no
// live lease holds it (an expired one is replaced); otherwise it fails
// with lease_held. It returns the lease as stored.
func (s *Store[T]) AcquireLease(ctx context.Context, l store.Lease) (store.Lease, error) {
	if err := checkLease(&l); err != nil {
		return store.Lease{}, err
	}
	row := s.cfg.Write.QueryRow(ctx, s.sql.leases.acquire,
		l.ID, l.Tenant, l.Profile, l.Holder, s.cfg.Stamp(l.Expires), s.now())
	got, err := s.readLease(row, leaseHeld)
	if err != nil && s.cfg.Duplicate(err) {
		return store.Lease{}, leaseExists
	}
	return got, failed(err, "the lease could not be acquired")
}

// RenewLease moves a live lease's expiry to expires; a lease that is not
// live fails with lease_expired.
func (s *Store[T]) RenewLease(ctx context.Context, id string, expires time.Time) (store.Lease, error) {
	if err := checkLeaseID(id); err != nil {
		return store.Lease{}, err
	}
	if err := checkExpiry(expires); err != nil {
		return store.Lease{}, err
	}
	row := s.cfg.Write.QueryRow(ctx, s.sql.leases.renew, s.cfg.Stamp(expires), id, s.now())
	l, err := s.readLease(row, leaseExpired)
	return l, failed(err, "the lease could not be renewed")
}

// ReleaseLease deletes a lease; an id the store does not hold is already
// released.
func (s *Store[T]) ReleaseLease(ctx context.Context, id string) error {
	if err := checkLeaseID(id); err != nil {
		return err
	}
	if _, err := s.cfg.Write.Exec(ctx, s.sql.leases.release, id); err != nil {
		return Fail(err, "the lease could not be released")
	}
	return nil
}

// Lease reads a live lease; one that is not live fails with lease_expired.
func (s *Store[T]) Lease(ctx context.Context, id string) (store.Lease, error) {
	if err := checkLeaseID(id); err != nil {
		return store.Lease{}, err
	}
	l, err := s.readLease(s.cfg.Read.QueryRow(ctx, s.sql.leases.live, id, s.now()), leaseExpired)
	return l, failed(err, "the lease could not be read")
}

// ExpiredLeases deletes every lease expired at now and returns them.
func (s *Store[T]) ExpiredLeases(ctx context.Context, now time.Time) ([]store.Lease, error) {
	if err := checkExpiry(now); err != nil {
		return nil, err
	}
	rows, err := s.cfg.Write.Query(ctx, s.sql.leases.reap, s.cfg.Stamp(now))
	if err != nil {
		return nil, Fail(err, "the expired leases could not be removed")
	}
	defer rows.Close()
	var gone []store.Lease
	for rows.Next() {
		l, err := s.readLease(rows, nil)
		if err != nil {
			return nil, failed(err, "the expired leases could not be removed")
		}
		gone = append(gone, l)
	}
	if err := rows.Err(); err != nil {
		return nil, Fail(err, "the expired leases could not be removed")
	}
	return gone, nil
}

// readLease reads a lease from a row of leaseColumns; none is the error
// for no row.
func (s *Store[T]) readLease(row Row, none error) (store.Lease, error) {
	var l store.Lease
	var expires T
	err := row.Scan(&l.ID, &l.Tenant, &l.Profile, &l.Holder, &expires)
	// pgx's ErrNoRows is also sql.ErrNoRows.
	if none != nil && errors.Is(err, sql.ErrNoRows) {
		return store.Lease{}, none
	}
	if err != nil {
		return store.Lease{}, err
	}
	l.Expires = s.cfg.At(expires)
	return l, nil
}

// now is the time leases are live against, in the store's encoding.
func (s *Store[T]) now() T { return s.cfg.Stamp(time.Now()) }
