package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
)

// Leases: acquire, held, takeover after expiry, renew, release, read and
// reaping; a tenant's lease does not hold another tenant's profile of the
// same name. Expired leases are made with an expiry in the past, so that
// nothing waits on the clock.
func (s Suite) Leases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	now := time.Now()
	hour, past := now.Add(time.Hour), now.Add(-time.Hour)
	acquire := func(id, tenant, profile string, expires time.Time) (store.Lease, error) {
		return st.AcquireLease(ctx, store.Lease{ID: id, Tenant: tenant, Profile: profile, Holder: "h-" + id, Expires: expires})
	}
	want := func(id, tenant, profile string, expires time.Time) store.Lease {
		return store.Lease{ID: id, Tenant: tenant, Profile: profile, Holder: "h-" + id, Expires: expires.UTC().Truncate(time.Microsecond)}
	}
	same := func(what string, got store.Lease, err error, w store.Lease) {
		t.Helper()
		if err != nil || got != w || got.Expires.Location() != time.UTC {
			t.Fatalf("%s: %+v, %v; want %+v", what, got, err, w)
		}
	}
	code := func(what string, err error, c errcode.Code) {
		t.Helper()
		if errcode.Of(err) != c {
			t.Fatalf("%s: %v, want %s", what, err, c)
		}
	}

	expires := time.Date(2100, 1, 2, 3, 4, 5, 123456789, time.FixedZone("CEST", 2*3600))
	l, err := acquire("l1", "t1", "p", expires)
	same("acquire", l, err, want("l1", "t1", "p", expires))
	l, err = st.Lease(ctx, "l1")
	same("read", l, err, want("l1", "t1", "p", expires))
	code("a held profile", second(acquire("l2", "t1", "p", hour)), errcode.LeaseHeld)
	code("the refused lease", second(st.Lease(ctx, "l2")), errcode.LeaseExpired)
	l, err = acquire("l3", "t2", "p", hour)
	same("another tenant's profile of the same name", l, err, want("l3", "t2", "p", hour))

	l, err = st.RenewLease(ctx, "l1", hour)
	same("renew", l, err, want("l1", "t1", "p", hour))
	l, err = st.Lease(ctx, "l1")
	same("read after renew", l, err, want("l1", "t1", "p", hour))

	// An expired lease: not live, not renewable, taken over.
	if _, err := acquire("old", "t1", "q", past); err != nil {
		t.Fatal(err)
	}
	code("an expired lease", second(st.Lease(ctx, "old")), errcode.LeaseExpired)
	code("renewing an expired lease", second(st.RenewLease(ctx, "old", hour)), errcode.LeaseExpired)
	l, err = acquire("new", "t1", "q", hour)
	same("acquire after expiry", l, err, want("new", "t1", "q", hour))
	code("renewing a lease taken over", second(st.RenewLease(ctx, "old", hour)), errcode.LeaseExpired)
	code("a lease taken over", second(st.Lease(ctx, "old")), errcode.LeaseExpired)
	code("an unknown lease", second(st.RenewLease(ctx, "never", hour)), errcode.LeaseExpired)

	// Release is idempotent and frees the profile.
	for range 2 {
		if err := st.ReleaseLease(ctx, "l3"); err != nil {
			t.Fatalf("release: %v", err)
		}
	}
	if err := st.ReleaseLease(ctx, "never"); err != nil {
		t.Fatalf("releasing an unknown id: %v", err)
	}
	code("a released lease", second(st.Lease(ctx, "l3")), errcode.LeaseExpired)
	code("renewing a released lease", second(st.RenewLease(ctx, "l3", hour)), errcode.LeaseExpired)
	if _, err := acquire("l4", "t2", "p", hour); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}

	// Reaping at a time: at the bound (expired at it) and one microsecond
	// past it.
	at := now.Add(10 * time.Minute).Truncate(time.Microsecond)
	for _, x := range []struct {
		id      string
		expires time.Time
	}{{"e1", past}, {"e2", at}, {"e3", at.Add(time.Microsecond)}} {
		if _, err := acquire(x.id, "t3", x.id, x.expires); err != nil {
			t.Fatal(err)
		}
	}
	gone, err := st.ExpiredLeases(ctx, at)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(gone, func(a, b store.Lease) int { return strings.Compare(a.ID, b.ID) })
	if !slices.Equal(gone, []store.Lease{want("e1", "t3", "e1", past), want("e2", "t3", "e2", at)}) {
		t.Fatalf("reaped %+v, want e1 and e2", gone)
	}
	for _, id := range []string{"l1", "new", "l4", "e3"} {
		if _, err := st.Lease(ctx, id); err != nil {
			t.Fatalf("the live lease %s after reaping: %v", id, err)
		}
	}
	code("a reaped lease", second(st.Lease(ctx, "e2")), errcode.LeaseExpired)
	if gone, err := st.ExpiredLeases(ctx, at); err != nil || len(gone) != 0 {
		t.Fatalf("reaping again: %+v, %v", gone, err)
	}
	if _, err := acquire("e4", "t3", "e2", hour); err != nil {
		t.Fatalf("acquiring a reaped lease's profile: %v", err)
	}
}

// LeaseBadInput is refused with invalid_argument and writes nothing; the
// bounds are tested at and one past them.
func (s Suite) LeaseBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	hour := time.Now().Add(time.Hour)
	at128 := strings.Repeat("x", 128)
	ok := store.Lease{ID: "id", Tenant: "tenant", Profile: "profile", Holder: "holder", Expires: hour}
	if _, err := st.AcquireLease(ctx, ok); err != nil {
		t.Fatal(err)
	}
	// with is a lease of its own profile with one field (by its index in
	// fields) set to v.
	fields := []string{"id", "tenant", "profile", "holder"}
	with := func(field int, v string) store.Lease {
		l := store.Lease{ID: fmt.Sprintf("id%d", field), Tenant: "tenant", Profile: fmt.Sprintf("profile%d", field),
			Holder: "holder", Expires: hour}
		switch fields[field] {
		case "id":
			l.ID = v
		case "tenant":
			l.Tenant = v
		case "profile":
			l.Profile = v
		case "holder":
			l.Holder = v
		}
		return l
	}
	errs := map[string]error{
		"no expiry":        second(st.AcquireLease(ctx, store.Lease{ID: "a", Tenant: "t", Profile: "p", Holder: "h"})),
		"a taken id":       second(st.AcquireLease(ctx, store.Lease{ID: "id", Tenant: "t", Profile: "another", Holder: "h", Expires: hour})),
		"renew: no id":     second(st.RenewLease(ctx, "", hour)),
		"renew: long id":   second(st.RenewLease(ctx, at128+"x", hour)),
		"renew: no expiry": second(st.RenewLease(ctx, "id", time.Time{})),
		"release: no id":   st.ReleaseLease(ctx, ""),
		"read: no id":      second(st.Lease(ctx, "")),
		"reap: no time":    second(st.ExpiredLeases(ctx, time.Time{})),
	}
	for field, name := range fields {
		for what, v := range map[string]string{"empty": "", "129 bytes": at128 + "x", "not UTF-8": "a\xffb", "NUL": "a\x00b"} {
			errs[name+" "+what] = second(st.AcquireLease(ctx, with(field, v)))
		}
	}
	for name, err := range errs {
		if errcode.Of(err) != errcode.InvalidArgument {
			t.Errorf("%s: %v, want invalid_argument", name, err)
		}
	}
	if l, err := st.Lease(ctx, "id"); err != nil || l.Profile != "profile" || !l.Expires.Equal(hour.Truncate(time.Microsecond)) {
		t.Fatalf("refused writes changed the lease: %+v, %v", l, err)
	}
	for field, name := range fields {
		if _, err := st.AcquireLease(ctx, with(field, at128)); err != nil {
			t.Fatalf("a 128-byte %s: %v", name, err)
		}
	}
	gone, err := st.ExpiredLeases(ctx, hour.Add(time.Hour))
	if err != nil || len(gone) != 5 {
		t.Fatalf("%d leases stored, want 5 (%v)", len(gone), err)
	}
}

// LeaseRace: in each of 100 rounds, 8 goroutines, half on each of two
// stores opened on one database, acquire one profile at once: exactly one
// wins, the others get lease_held. Odd rounds race to take over an
// expired lease, even rounds to create the first.
func (s Suite) LeaseRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	spec := s.Fresh(t)
	stores := []store.Store{s.open(t, spec), s.open(t, spec)}
	const rounds, racers = 100, 8
	for round := range rounds {
		profile := fmt.Sprintf("p%d", round)
		if round%2 == 1 {
			if _, err := stores[0].AcquireLease(ctx, store.Lease{ID: profile + "-expired", Tenant: "t", Profile: profile,
				Holder: "h", Expires: time.Now().Add(-time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		start := make(chan struct{})
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for r := range racers {
			st := stores[r%2]
			wg.Go(func() {
				<-start
				_, errs[r] = st.AcquireLease(ctx, store.Lease{ID: fmt.Sprintf("%s-%d", profile, r), Tenant: "t", Profile: profile,
					Holder: fmt.Sprintf("store%d", r%2), Expires: time.Now().Add(time.Hour)})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for r, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: racers %d and %d both acquired the lease", round, winner, r)
			case err == nil:
				winner = r
			case errcode.Of(err) != errcode.LeaseHeld:
				t.Fatalf("round %d: racer %d: %v, want %s", round, r, err, errcode.LeaseHeld)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no racer acquired the lease", round)
		}
		// Both stores see the winner's lease.
		for k, st := range stores {
			l, err := st.Lease(ctx, fmt.Sprintf("%s-%d", profile, winner))
			if err != nil || l.Holder != fmt.Sprintf("store%d", winner%2) {
				t.Fatalf("round %d: store %d reads the winner's lease as %+v, %v", round, k, l, err)
			}
		}
	}
}
