package uploads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
)

// fixture is an upload root with files of the given sizes, each named
// after its size.
func fixture(t *testing.T, sizes ...int) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range sizes {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("%d.bin", n)), []byte(strings.Repeat("x", n)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func testRoot(t *testing.T, dir string, l Limits) Root {
	t.Helper()
	u, err := New(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if got := errcode.Of(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

// TestCopyRefusesFIFOWithoutBlocking: a FIFO in the root, reached directly
// or through a symlink, is refused at once; opening it would block until a
// writer appears, which is never.
func TestCopyRefusesFIFOWithoutBlocking(t *testing.T) {
	t.Parallel()
	root := fixture(t, 1)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("pipe", filepath.Join(root, "link"))
	os.Mkdir(filepath.Join(root, "dir"), 0o700)
	u := testRoot(t, root, Limits{})
	for _, p := range []string{"pipe", "link", "dir"} {
		done := make(chan error, 1)
		go func() {
			_, _, err := u.Copy(context.Background(), []string{p}, t.TempDir(), u.maxKept)
			done <- err
		}()
		select {
		case err := <-done:
			wantCode(t, err, errcode.UploadRefused)
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: copying blocked", p)
		}
	}
}

// TestBounds: files per upload, bytes per file and bytes kept by the
// session, each at the bound and one past it.
func TestBounds(t *testing.T) {
	t.Parallel()
	root := fixture(t, 100, 101)
	u := testRoot(t, root, Limits{MaxFile: 100})
	if u.maxFiles != DefaultMaxFiles || u.maxKept != DefaultMaxKept || DefaultMaxFiles != 16 || DefaultMaxKept != 64<<20 {
		t.Fatalf("defaults: %d files, %d bytes kept", u.maxFiles, u.maxKept)
	}
	paths := func(n int) []string { return strings.Split(strings.Repeat("100.bin ", n), " ")[:n] }
	if err := u.Check(paths(16)); err != nil {
		t.Fatalf("16 files: %v", err)
	}
	wantCode(t, u.Check(paths(17)), errcode.UploadRefused)
	wantCode(t, u.Check(nil), errcode.InvalidArgument)

	copyIn := func(room int64, p ...string) (int64, error) {
		_, n, err := u.Copy(context.Background(), p, t.TempDir(), room)
		return n, err
	}
	if n, err := copyIn(u.maxKept, "100.bin"); err != nil || n != 100 {
		t.Fatalf("a file at the size limit: %d bytes, %v", n, err)
	}
	_, err := copyIn(u.maxKept, "101.bin")
	wantCode(t, err, errcode.UploadRefused)
	// Room for exactly two copies, then one byte short of it.
	if n, err := copyIn(200, "100.bin", "100.bin"); err != nil || n != 200 {
		t.Fatalf("two files in 200 bytes of room: %d bytes, %v", n, err)
	}
	_, err = copyIn(199, "100.bin", "100.bin")
	wantCode(t, err, errcode.UploadRefused)

	_, err = New("", Limits{MaxFiles: -1})
	wantCode(t, err, errcode.InvalidArgument)
}
