package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
)

func TestRedactTextNeverReturnsTheText(t *testing.T) {
	key := []byte("0123456789abcdef")
	const secret = "hunter2 — mein Passwort"
	r, err := store.RedactText(key, secret)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(r)
	for _, part := range []string{secret, "hunter2", "Passwort"} {
		if strings.Contains(string(out), part) {
			t.Fatalf("the redaction %s shows %q", out, part)
		}
	}
	if r.Length != len(secret) || !strings.HasPrefix(r.Digest, "hmac-sha256:") || len(r.Digest) != len("hmac-sha256:")+64 {
		t.Fatalf("redaction %+v", r)
	}
	again, _ := store.RedactText(key, secret)
	other, _ := store.RedactText([]byte("fedcba9876543210"), secret)
	if again != r || other.Digest == r.Digest {
		t.Fatalf("the digest is not keyed and deterministic: %v %v %v", r, again, other)
	}
	// The key's bound, at it and one under.
	if _, err := store.RedactText(key[:store.MinRedactionKey-1], secret); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("a 15-byte key: %v", err)
	}
	if _, err := store.RedactText(key[:store.MinRedactionKey], secret); err != nil {
		t.Fatalf("a 16-byte key: %v", err)
	}
}

// Without a store there are no leases: every lease method says so.
func TestNoStoreHasNoLeases(t *testing.T) {
	ctx := context.Background()
	none := store.Discard
	l := store.Lease{ID: "l", Tenant: "t", Profile: "p", Holder: "h", Expires: time.Now().Add(time.Hour)}
	for name, err := range map[string]error{
		"acquire": second(none.AcquireLease(ctx, l)),
		"renew":   second(none.RenewLease(ctx, "l", l.Expires)),
		"release": none.ReleaseLease(ctx, "l"),
		"read":    second(none.Lease(ctx, "l")),
		"reap":    second(none.ExpiredLeases(ctx, time.Now())),
	} {
		if code, msg := errcode.Public(err); code != errcode.ArtifactUnavailable || !strings.Contains(msg, "leases need a store") {
			t.Errorf("%s without a store: %v", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestSessionIDsDiffer(t *testing.T) {
	a, b := store.NewSessionID(), store.NewSessionID()
	if a == b || len(a) != 24 {
		t.Fatalf("%q %q", a, b)
	}
}
