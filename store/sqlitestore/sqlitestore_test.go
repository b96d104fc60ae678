package sqlitestore_test

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/internal/storetest"
	"github.com/veetbot/veetbrowser/store/sqlitestore"
)

func TestMain(m *testing.M) {
	storetest.Child()
	os.Exit(m.Run())
}

func fresh(t testing.TB) string { return filepath.Join(t.TempDir(), "artifacts.db") }

func TestSQLiteStore(t *testing.T) {
	storetest.Suite{Fresh: fresh}.Run(t)
}

func TestSQLiteFileIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "artifacts.db")
	st, err := sqlitestore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateSession(context.Background(), storetest.Session("s", time.Now())); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", filepath.Base(p), fi.Mode().Perm())
		}
	}
}

// A file the process may not write still opens, and the next write fails
// with artifact_unavailable, never silently. As root, permissions do not
// bind, so the write runs in a child process as nobody.
func TestSQLiteReadOnlyFile(t *testing.T) {
	dir, err := os.MkdirTemp("", "readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "artifacts.db")
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateSession(ctx, storetest.Session("s", time.Now())); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}

	if os.Geteuid() != 0 {
		st, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatalf("a read-only file does not open for reading: %v", err)
		}
		defer st.Close()
		if _, err := st.Record(ctx, storetest.Call("s", 1)); errcode.Of(err) != store.Unavailable {
			t.Fatalf("a write to a read-only file: %v, want %s", err, store.Unavailable)
		}
		return
	}
	const nobody = 65534
	// The file stays root's (read-only to nobody); nobody may create the
	// WAL files beside it and run a copy of this test binary.
	exe := filepath.Join(dir, "test.bin")
	copyFile(t, exe)
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd := storetest.WriteOnce(t, path, "s")
	cmd.Path = exe
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "code "+string(store.Unavailable) {
		t.Fatalf("a write to a read-only file: %q, want code %s", got, store.Unavailable)
	}
}

func copyFile(t *testing.T, to string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	if p, err := sqlitestore.DefaultPath(); err != nil || p != "/data/veetbrowser/artifacts.db" {
		t.Fatalf("with XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if p, err := sqlitestore.DefaultPath(); err != nil || p != "/home/u/.local/share/veetbrowser/artifacts.db" {
		t.Fatalf("without an absolute XDG_DATA_HOME: %q, %v", p, err)
	}
}

func BenchmarkSQLiteRecord(b *testing.B) {
	path := fresh(b)
	st, err := sqlitestore.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	// The file's size once the WAL is checkpointed into it.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	size := func() int64 {
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		return fi.Size()
	}
	storetest.BenchRecord(b, st, size)
}
