package pgstore_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/pgtest"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/internal/storetest"
	"github.com/veetbot/veetbrowser/store/pgstore"
)

func TestMain(m *testing.M) {
	storetest.Child()
	pgtest.Main(m)
}

func TestPostgresStore(t *testing.T) {
	storetest.Suite{Fresh: pgtest.Database}.Run(t)
}

func TestPostgresBadDSN(t *testing.T) {
	_, err := pgstore.Open(context.Background(), "postgres://u:secret@127.0.0.1:notaport/db")
	if errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("a malformed DSN: %v", err)
	}
	if code, msg := errcode.Public(err); code != errcode.InvalidArgument || contains(msg, "secret") {
		t.Fatalf("the error shows the password: %q", msg)
	}
}

// A server that is not there is artifact_unavailable, not a hang.
func TestPostgresUnreachable(t *testing.T) {
	u, err := url.Parse(pgtest.Server(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/veet_missing_db" // a running server, a database that does not exist
	_, err = pgstore.Open(context.Background(), u.String())
	if errcode.Of(err) != store.Unavailable {
		t.Fatalf("a missing database: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func BenchmarkPostgresRecord(b *testing.B) {
	dsn := pgtest.Database(b)
	ctx := context.Background()
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	size := func() int64 {
		var n int64
		if err := conn.QueryRow(ctx, `SELECT pg_total_relation_size('veetbrowser_calls') + pg_total_relation_size('veetbrowser_sessions')`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	storetest.BenchRecord(b, st, size)
}
