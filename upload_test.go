package veetbrowser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// uploadFixture is an upload root with files of the given sizes, each
// named after its size.
func uploadFixture(t *testing.T, sizes ...int) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range sizes {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("%d.bin", n)), []byte(strings.Repeat("x", n)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func testRoot(t *testing.T, opts SessionOptions) uploadRoot {
	t.Helper()
	u, err := newUploadRoot(opts)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestUploadRefusesFIFOWithoutBlocking: a FIFO in the root, reached
// directly or through a symlink, is refused at once; opening it would
// block until a writer appears, which is never.
func TestUploadRefusesFIFOWithoutBlocking(t *testing.T) {
	t.Parallel()
	root := uploadFixture(t, 1)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("pipe", filepath.Join(root, "link"))
	os.Mkdir(filepath.Join(root, "dir"), 0o700)
	u := testRoot(t, SessionOptions{UploadRoot: root})
	for _, p := range []string{"pipe", "link", "dir"} {
		done := make(chan error, 1)
		go func() {
			_, _, err := u.resolve(context.Background(), []string{p}, t.TempDir(), u.maxKept)
			done <- err
		}()
		select {
		case err := <-done:
			wantCode(t, err, errcode.UploadRefused)
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: resolving blocked", p)
		}
	}
}

// TestUploadBounds: files per upload, bytes per file and bytes kept by the
// session, each at the bound and one past it.
func TestUploadBounds(t *testing.T) {
	t.Parallel()
	root := uploadFixture(t, 100, 101)
	u := testRoot(t, SessionOptions{UploadRoot: root, MaxUploadBytes: 100})
	if u.maxFiles != DefaultMaxUploadFiles || u.maxKept != DefaultMaxUploadKept || DefaultMaxUploadFiles != 16 || DefaultMaxUploadKept != 64<<20 {
		t.Fatalf("defaults: %d files, %d bytes kept", u.maxFiles, u.maxKept)
	}
	paths := func(n int) []string { return strings.Split(strings.Repeat("100.bin ", n), " ")[:n] }
	if err := u.check(paths(16)); err != nil {
		t.Fatalf("16 files: %v", err)
	}
	wantCode(t, u.check(paths(17)), errcode.UploadRefused)
	wantCode(t, u.check(nil), errcode.InvalidArgument)

	resolve := func(room int64, p ...string) (int64, error) {
		_, n, err := u.resolve(context.Background(), p, t.TempDir(), room)
		return n, err
	}
	if n, err := resolve(u.maxKept, "100.bin"); err != nil || n != 100 {
		t.Fatalf("a file at the size limit: %d bytes, %v", n, err)
	}
	_, err := resolve(u.maxKept, "101.bin")
	wantCode(t, err, errcode.UploadRefused)
	// Room for exactly two copies, then one byte short of it.
	if n, err := resolve(200, "100.bin", "100.bin"); err != nil || n != 200 {
		t.Fatalf("two files in 200 bytes of room: %d bytes, %v", n, err)
	}
	_, err = resolve(199, "100.bin", "100.bin")
	wantCode(t, err, errcode.UploadRefused)

	_, err = newUploadRoot(SessionOptions{MaxUploadFiles: -1})
	wantCode(t, err, errcode.InvalidArgument)
}

// copyDirs lists the session's upload directories (one per kept upload)
// and what files they hold.
func copyDirs(t *testing.T, s *Session) []string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.copies == "" {
		return nil
	}
	entries, err := os.ReadDir(s.copies)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestUploadChecksTheControlBeforeCopying: a bogus, stale or non-file
// reference and too many files are refused with nothing copied.
func TestUploadChecksTheControlBeforeCopying(t *testing.T) {
	t.Parallel()
	root := uploadFixture(t, 1000)
	s := session(t, SessionOptions{UploadRoot: root})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, browsertest.Serve(t, `<label>File <input type="file"></label><button>Other</button>`))
	if err != nil {
		t.Fatal(err)
	}
	many := strings.Split(strings.Repeat("1000.bin ", 16), " ")[:16]
	_, err = s.Upload(ctx, "cBOGUS", many)
	wantCode(t, err, errcode.UnknownReference)
	_, err = s.Upload(ctx, ref(t, res, "Other"), many)
	wantCode(t, err, errcode.UploadRefused)
	_, err = s.Upload(ctx, ref(t, res, "File"), append(many, "1000.bin"))
	wantCode(t, err, errcode.UploadRefused)
	stale := ref(t, res, "File")
	if _, err := s.Observe(ctx, ObserveOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Upload(ctx, stale, many)
	wantCode(t, err, errcode.StaleReference)
	if dirs := copyDirs(t, s); len(dirs) != 0 {
		t.Fatalf("refused uploads left copies: %q", dirs)
	}
}

// readerPage reads the file of input A or B when its button is clicked,
// as a site does on submit, and shows what it read.
const readerPage = `<label>A <input type="file" id="a"></label><label>B <input type="file" id="b"></label>
<button onclick="show('a')">Read A</button><button onclick="show('b')">Read B</button><p id="out">nothing read</p>
<script>
async function show(id) {
	const f = document.getElementById(id).files[0];
	try { document.getElementById('out').textContent = 'read ' + (await f.text()).length + ' bytes'; }
	catch (e) { document.getElementById('out').textContent = 'unreadable'; }
}
</script>`

// TestUploadCopiesArePerControl: the page reads the copies lazily, after
// the upload returned; each control keeps its newest upload's copies,
// within the session's kept bytes (at the bound and one past), until the
// page leaves the document or the session closes.
func TestUploadCopiesArePerControl(t *testing.T) {
	t.Parallel()
	root := uploadFixture(t, 4, 5, 6, 7)
	s := session(t, SessionOptions{UploadRoot: root, MaxUploadKept: 10})
	ctx := browsertest.Context(t, 2*time.Minute)
	url := browsertest.Serve(t, readerPage)
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	upload := func(control, file string) error {
		t.Helper()
		r, err := s.Upload(ctx, ref(t, res, control), []string{file})
		if err == nil {
			res = r
		}
		return err
	}
	read := func(button, want string) {
		t.Helper()
		r, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, button)})
		if err != nil {
			t.Fatal(err)
		}
		// The read is asynchronous: observe until the page shows it.
		for !strings.Contains(fmt.Sprint(r.Observation.Text), want) {
			if ctx.Err() != nil {
				t.Fatalf("%s: the page shows %v, want %q", button, r.Observation.Text, want)
			}
			if r, err = s.Observe(ctx, ObserveOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		res = r
	}
	wantDirs := func(n int) {
		t.Helper()
		if dirs := copyDirs(t, s); len(dirs) != n {
			t.Fatalf("%d upload dirs kept, want %d: %q", len(dirs), n, dirs)
		}
	}

	if err := upload("A", "5.bin"); err != nil {
		t.Fatal(err)
	}
	if err := upload("B", "5.bin"); err != nil { // 10 bytes kept: the bound
		t.Fatal(err)
	}
	wantDirs(2)
	wantCode(t, upload("B", "6.bin"), errcode.UploadRefused) // 11: one past
	wantDirs(2)
	if err := upload("A", "4.bin"); err != nil { // replaces A's copies
		t.Fatal(err)
	}
	wantDirs(2)
	read("Read A", "read 4 bytes")
	read("Read B", "read 5 bytes")
	if err := upload("B", "6.bin"); err != nil { // 4 + 6
		t.Fatal(err)
	}
	read("Read B", "read 6 bytes")

	// A new document: the old one's copies go with the next upload.
	if res, err = s.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	if err := upload("A", "7.bin"); err != nil {
		t.Fatal(err)
	}
	wantDirs(1)
	read("Read A", "read 7 bytes")

	s.mu.Lock()
	copies := s.copies
	s.mu.Unlock()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(copies); !os.IsNotExist(err) {
		t.Fatalf("Close left the upload copies: %v", err)
	}
}
