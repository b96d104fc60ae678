package storespec_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

func TestOpenSpecs(t *testing.T) {
	ctx := context.Background()
	none, err := storespec.Open(ctx, store.None)
	if err != nil || none != store.Discard {
		t.Fatalf("%q opens %T, %v; want store.Discard", store.None, none, err)
	}
	if _, err := none.Intent(ctx, store.Call{}); err != nil {
		t.Fatal(err)
	}
	if _, err := none.Session(ctx, "x"); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("reading from none: %v", err)
	}

	st, err := storespec.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := store.Session{ID: store.NewSessionID(), StartedAt: time.Now(), Version: "1.5.0", Budget: 8192, Grant: json.RawMessage(`{}`), Surface: "cli"}
	if err := st.CreateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Session(ctx, s.ID); err != nil || got.ID != s.ID {
		t.Fatalf("a path opens SQLite: %+v, %v", got, err)
	}

	for _, dsn := range []string{"postgres://u:pw@127.0.0.1:notaport/db", "postgresql://u:pw@127.0.0.1:bad/db"} {
		if _, err := storespec.Open(ctx, dsn); errcode.Of(err) != errcode.InvalidArgument {
			t.Fatalf("%s: %v", dsn, err)
		}
	}
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	def, err := storespec.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	def.Close()
}
