package veetbrowser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/uploads"
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

// TestUploadDefaults: a session's upload limits are its options', the
// documented defaults where an option is 0; a negative one is refused.
func TestUploadDefaults(t *testing.T) {
	t.Parallel()
	u, err := uploadRoot(SessionOptions{UploadRoot: t.TempDir(), MaxUploadBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.Limits(), (uploads.Limits{MaxFile: 100, MaxFiles: DefaultMaxUploadFiles, MaxKept: DefaultMaxUploadKept}); got != want {
		t.Fatalf("limits %+v, want %+v", got, want)
	}
	if DefaultMaxUpload != 10<<20 || DefaultMaxUploadFiles != 16 || DefaultMaxUploadKept != 64<<20 {
		t.Fatalf("defaults: %d bytes a file, %d files, %d bytes kept", DefaultMaxUpload, DefaultMaxUploadFiles, DefaultMaxUploadKept)
	}
	_, err = uploadRoot(SessionOptions{MaxUploadFiles: -1})
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
