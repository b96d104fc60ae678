package veetbrowser

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/sqlitestore"
)

// downloadSite is a software vendor's release page: a header, a sidebar,
// release notes and a table of files, each link answering with
// Content-Disposition: attachment. /files/SIZE?name=NAME serves SIZE bytes
// of a pattern under NAME; chunked leaves the length out, so only the
// bytes received tell the size.
func downloadSite(t *testing.T, links ...string) string { return downloadSiteB(t, links...) }

func downloadSiteB(t testing.TB, links ...string) string {
	t.Helper()
	var rows strings.Builder
	for _, l := range links {
		label, href, _ := strings.Cut(l, "=")
		fmt.Fprintf(&rows, `<tr><td>%s</td><td><a href="%s">Download %s</a></td></tr>`, label, href, label)
	}
	page := `<!doctype html><title>Acme Sync 4.2 - Downloads</title>
<header><nav><a href="/">Acme</a> <a href="/pricing">Pricing</a> <a href="/docs">Docs</a></nav></header>
<aside><h2>Other releases</h2><ul><li><a href="/4.1">4.1</a></li><li><a href="/4.0">4.0</a></li></ul></aside>
<main><article><h1>Acme Sync 4.2</h1><p>This release brings faster sync and fixes two crashes on resume.</p>
<table><thead><tr><th>Package</th><th>Link</th></tr></thead><tbody>` + rows.String() + `</tbody></table></article></main>
<footer>© Acme Inc. <a href="/privacy">Privacy</a></footer>`
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/files/{size}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("size"), &n)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(r.URL.Query().Get("name")))
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", fmt.Sprint(n))
		}
		w.Write(pattern(n))
	})
	return browsertest.ServeHandler(t, mux)
}

// pattern is n bytes that are not all alike, so that a digest of a wrong
// part of them differs.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func hexSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// clickNamed clicks the control of res named name through Call, as a model
// does, and returns the result and its view's action outcome.
func clickNamed(t *testing.T, s *Session, res *Result, name string) (*Result, *projection.Outcome) {
	t.Helper()
	for _, c := range res.Observation.Controls {
		if c.Name == name {
			out, err := s.Call(browsertest.Context(t, time.Minute), "browser_act", json.RawMessage(fmt.Sprintf(`{"kind":"click","ref":%q}`, c.Ref)))
			if err != nil {
				t.Fatalf("click %s: %v", name, err)
			}
			var v projection.View
			if err := out.DecodeView(&v); err != nil {
				t.Fatal(err)
			}
			return out, v.Action
		}
	}
	t.Fatalf("no control %q", name)
	return nil, nil
}

// dirFiles lists what is in dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestDownloadLandsWithItsDigest: a 1 MB file a link downloads lands in the
// session's download directory; the act reports it completed, with its size
// and the digest of the file on disk, and no navigation.
func TestDownloadLandsWithItsDigest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const mb = 1 << 20
	base := downloadSite(t, "Linux=/files/1048576?name=acme-sync-4.2.tar.gz")
	s := session(t, SessionOptions{DownloadDir: dir})
	res, err := s.Navigate(browsertest.Context(t, time.Minute), base)
	if err != nil {
		t.Fatal(err)
	}
	out, act := clickNamed(t, s, res, "Download Linux")
	if act == nil || act.Download == nil {
		t.Fatalf("the act reports no download: %s", out.View)
	}
	d := act.Download
	if d.State != browser.DownloadCompleted || d.Name != "acme-sync-4.2.tar.gz" || d.Bytes != mb || act.NavigationStarted {
		t.Fatalf("download %+v, navigation_started %v", d, act.NavigationStarted)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, d.Name))
	if err != nil {
		t.Fatal(err)
	}
	if hexSHA(onDisk) != d.SHA256 || d.SHA256 != hexSHA(pattern(mb)) {
		t.Fatalf("sha256 %s, file on disk %s", d.SHA256, hexSHA(onDisk))
	}
	if got := dirFiles(t, dir); len(got) != 1 {
		t.Fatalf("the directory holds %v", got)
	}
}

// stagedFiles lists the files of the browsers' download staging
// directories.
func stagedFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(os.TempDir(), "veetbrowser-staging-*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if filepath.Base(f) != ".owner" {
			out = append(out, f)
		}
	}
	return out
}

// TestDownloadCapAtAndOnePast: with a file cap of 64 KiB, a file of exactly
// 64 KiB lands; one byte more is too_large, whether its length was
// announced or only its bytes tell, and nothing of it is left, in the
// download directory or where the browser wrote it. A session cap counts
// what the session kept: the second 64 KiB file past a 100 KiB session cap
// is too_large too. Not parallel: the staging check needs no other
// download running.
func TestDownloadCapAtAndOnePast(t *testing.T) {
	const limit = 64 << 10
	base := downloadSite(t, fmt.Sprintf("At=/files/%d?name=at.bin", limit),
		fmt.Sprintf("Over=/files/%d?name=over.bin", limit+1),
		fmt.Sprintf("Chunked=/files/%d?name=chunked.bin&chunked=1", limit+1),
		fmt.Sprintf("Again=/files/%d?name=again.bin", limit))
	dir := t.TempDir()
	s := session(t, SessionOptions{DownloadDir: dir, MaxDownloadBytes: limit})
	ctx := browsertest.Context(t, time.Minute)
	for _, c := range []struct {
		link, state string
		bytes       int64
	}{{"Download At", browser.DownloadCompleted, limit}, {"Download Over", browser.DownloadTooLarge, 0}, {"Download Chunked", browser.DownloadTooLarge, 0}} {
		res, err := s.Navigate(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		_, act := clickNamed(t, s, res, c.link)
		if act.Download == nil || act.Download.State != c.state || c.bytes != 0 && act.Download.Bytes != c.bytes {
			t.Fatalf("%s: download %+v, want %s", c.link, act.Download, c.state)
		}
		if c.state == browser.DownloadTooLarge && (act.Download.SHA256 != "" || act.Download.Bytes <= limit) {
			t.Fatalf("%s: too large reported as %+v", c.link, act.Download)
		}
	}
	if got := dirFiles(t, dir); len(got) != 1 || got[0] != "at.bin" {
		t.Fatalf("the directory holds %v, want only at.bin", got)
	}
	if left := stagedFiles(t); len(left) != 0 {
		t.Fatalf("partial files left: %v", left)
	}

	// The session cap: 64 KiB kept, and 64 KiB more does not fit in 100.
	dir2 := t.TempDir()
	s2 := session(t, SessionOptions{DownloadDir: dir2, MaxDownloadTotal: 100 << 10})
	for i, want := range []string{browser.DownloadCompleted, browser.DownloadTooLarge} {
		res, err := s2.Navigate(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		_, act := clickNamed(t, s2, res, []string{"Download At", "Download Again"}[i])
		if act.Download == nil || act.Download.State != want {
			t.Fatalf("download %d: %+v, want %s", i, act.Download, want)
		}
	}
	if got := dirFiles(t, dir2); len(got) != 1 || got[0] != "at.bin" {
		t.Fatalf("the directory holds %v, want only at.bin", got)
	}
}

// TestDownloadDefaults: the documented caps; a negative cap and a download
// directory that is not one are refused.
func TestDownloadDefaults(t *testing.T) {
	t.Parallel()
	if DefaultMaxDownload != 64<<20 || DefaultMaxDownloadTotal != 256<<20 || browser.MaxKeptDownloads != 100 {
		t.Fatalf("defaults: %d a file, %d a session, %d listed", DefaultMaxDownload, DefaultMaxDownloadTotal, browser.MaxKeptDownloads)
	}
	v := Session{}.version
	v.Downloads = true
	_, err := downloadOptions(v, SessionOptions{MaxDownloadBytes: -1})
	wantCode(t, err, errcode.InvalidArgument)
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	_, err = downloadOptions(v, SessionOptions{DownloadDir: file})
	wantCode(t, err, errcode.InvalidArgument)
	d, err := downloadOptions(v, SessionOptions{})
	if err != nil || d.Dir == "" || d.MaxFile != 0 {
		t.Fatalf("%+v, %v", d, err)
	}
	dropDownloads(SessionOptions{}, d)
	if _, err := os.Stat(d.Dir); !os.IsNotExist(err) {
		t.Fatalf("the temp dir is still there: %v", err)
	}
}

// TestDownloadNameStaysInside: names that climb out of the directory, hide,
// carry control characters or run long land directly inside it, sanitized
// and bounded, and a name taken gets a number.
func TestDownloadNameStaysInside(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("report-", 40) + ".pdf"
	base := downloadSite(t, "Climb=/files/10?name=../../x", "Again=/files/10?name=../../x",
		"Dots=/files/10?name=..", "Control=/files/10?name=a%01b%5C..%5Cc.txt", "Long=/files/10?name="+long)
	parent := t.TempDir()
	dir := filepath.Join(parent, "downloads")
	os.Mkdir(dir, 0o700)
	s := session(t, SessionOptions{DownloadDir: dir})
	ctx := browsertest.Context(t, time.Minute)
	var names []string
	for _, link := range []string{"Download Climb", "Download Again", "Download Dots", "Download Control", "Download Long"} {
		res, err := s.Navigate(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		_, act := clickNamed(t, s, res, link)
		if act.Download == nil || act.Download.State != browser.DownloadCompleted {
			t.Fatalf("%s: %+v", link, act.Download)
		}
		names = append(names, act.Download.Name)
	}
	for i, n := range names {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x01") || len(n) > browser.MaxDownloadName ||
			i > 0 && n == names[0] {
			t.Fatalf("names %q", names)
		}
	}
	if !strings.HasSuffix(names[4], ".pdf") {
		t.Fatalf("the long name lost its extension: %q", names[4])
	}
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || fi.Size() != 10 {
			t.Fatalf("%q is not in the directory: %v", n, err)
		}
	}
	if got := dirFiles(t, parent); len(got) != 1 {
		t.Fatalf("outside the directory: %v", got)
	}
}

// TestDownloadForeignOriginRefused: with the grant naming one origin, a
// link to a file of another loopback origin is stopped before its request
// leaves (that server counts 0 requests), and a download a frame of the
// other origin starts by itself is refused at its start (the browser
// reports its URL before it is kept, and the URL's origin is judged
// against the grant): cancelled, no file, browser_downloads says refused.
func TestDownloadForeignOriginRefused(t *testing.T) {
	t.Parallel()
	var fileRequests atomic.Int64
	other := browsertest.OtherOrigin(browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/files/") {
			fileRequests.Add(1)
			w.Header().Set("Content-Disposition", `attachment; filename="ad.exe"`)
			w.Write(pattern(4096))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<p>Sponsored</p><script>if (location.search === "?auto") location = "/files/ad"</script>`)
	})))
	base := browsertest.ServePages(t, map[string]string{
		"/": fmt.Sprintf(`<main><h1>Shop</h1><p>Our best offers.</p>
<a href="%sfiles/direct">Get the app</a> <a href="/offers">All offers</a><iframe src="%sframe?auto" title="Sponsored"></iframe></main>`, other, other),
		"/offers": `<main><h1>All offers</h1><ul><li>Socks, 3 for 2</li><li>Free returns</li></ul></main>`})
	dir := t.TempDir()
	s := session(t, SessionOptions{DownloadDir: dir, Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}}})
	ctx := browsertest.Context(t, time.Minute)
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var ref string
	for _, c := range res.Observation.Controls {
		if c.Name == "Get the app" {
			ref = c.Ref
		}
	}
	_, err = s.Call(ctx, "browser_act", json.RawMessage(fmt.Sprintf(`{"kind":"click","ref":%q}`, ref)))
	wantCode(t, err, errcode.ForeignOrigin)
	// The frame's own download: wait until the browser reported it.
	var v projection.DownloadsView
	for deadline := time.Now().Add(20 * time.Second); len(v.Downloads) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, err := s.Call(ctx, "browser_downloads", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out.View, &v); err != nil {
			t.Fatal(err)
		}
	}
	if len(v.Downloads) != 1 || v.Downloads[0].State != browser.DownloadRefused || v.Downloads[0].Origin != strings.TrimSuffix(other, "/") || v.Downloads[0].SHA256 != "" {
		t.Fatalf("downloads %+v", v)
	}
	if got := dirFiles(t, dir); len(got) != 0 {
		t.Fatalf("the directory holds %v", got)
	}
	if fileRequests.Load() != 1 {
		// the frame's own, which the grant does not govern; never the link's
		t.Fatalf("the other server saw %d file requests, want 1 (the frame's)", fileRequests.Load())
	}
	// The frame's download was no action's: the next click is a plain
	// navigation, waited for, with no download.
	if res, err = s.Observe(ctx, ObserveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, act := clickNamed(t, s, res, "All offers"); act.Download != nil || !act.NavigationDone {
		t.Fatalf("the next click: %+v, download %+v", act, act.Download)
	}
}

// TestDownloadsListedAndRecorded: browser_downloads lists the session's
// downloads oldest first with their size, digest, state and origin; the
// act's record holds the download's name, size, digest and state, never
// its content; replay re-derives the act's view. A 1.9.0 session has no
// browser_downloads, and its act view is as before: no download.
func TestDownloadsListedAndRecorded(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "records.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rt, err := New(shared.Get(t), Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	base := downloadSite(t, "Manual=/files/3000?name=manual.pdf", "Checksums=/files/200?name=SHA256SUMS")
	s, err := rt.NewSession(ctx, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	for _, link := range []string{"Download Manual", "Download Checksums"} {
		res, err := s.Navigate(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		clickNamed(t, s, res, link)
	}
	out, err := s.Call(ctx, "browser_downloads", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var v projection.DownloadsView
	if err := json.Unmarshal(out.View, &v); err != nil {
		t.Fatal(err)
	}
	origin := strings.TrimSuffix(base, "/")
	want := []projection.Download{{Name: "manual.pdf", Bytes: 3000, SHA256: hexSHA(pattern(3000)), State: "completed", Origin: origin},
		{Name: "SHA256SUMS", Bytes: 200, SHA256: hexSHA(pattern(200)), State: "completed", Origin: origin}}
	if fmt.Sprint(v.Downloads) != fmt.Sprint(want) || v.Coverage.Total != 2 || v.Coverage.Shown != 2 {
		t.Fatalf("view %s", out.View)
	}
	if _, err := s.Call(ctx, "browser_downloads", json.RawMessage(`{"all":true}`)); err == nil {
		t.Fatal("an unknown argument was taken")
	}
	dir := s.DownloadDir()
	var acts int
	err = st.Calls(ctx, s.ID(), func(c store.Call) error {
		if c.Tool != "browser_act" {
			return nil
		}
		acts++
		var rec struct {
			Postconditions struct{ Download *browser.Download } `json:"postconditions"`
		}
		if err := json.Unmarshal(c.Action, &rec); err != nil {
			return err
		}
		d := rec.Postconditions.Download
		if d == nil || d.SHA256 != want[acts-1].SHA256 || d.Name != want[acts-1].Name || d.Bytes != want[acts-1].Bytes {
			t.Errorf("act %d recorded %s", acts, c.Action)
		}
		if bytes.Contains(c.Action, pattern(200)[:64]) {
			t.Errorf("act %d's record holds the file's content", acts)
		}
		return nil
	})
	if err != nil || acts != 2 {
		t.Fatalf("%d acts, %v", acts, err)
	}
	rep, err := replay.Session(ctx, st, s.ID(), replay.Options{})
	if err != nil || !rep.AllFit || rep.First != nil {
		t.Fatalf("replay: %+v, %v", rep, err)
	}
	s.Close(ctx)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the session's temp download dir outlived it: %v", err)
	}

	old, err := rt.NewSession(ctx, SessionOptions{Version: "1.9.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Close(context.Background()) })
	res, err := old.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = clickNamed(t, old, res, "Download Manual")
	if bytes.Contains(out.View, []byte(`"download"`)) || old.DownloadDir() != "" {
		t.Fatalf("a 1.9.0 view shows a download: %s", out.View)
	}
	_, err = old.Call(ctx, "browser_downloads", json.RawMessage(`{}`))
	wantCode(t, err, errcode.InvalidArgument)
}

// TestDownloadInProgressThenCompleted: a download that has not finished
// when the action's settle bound runs out is reported in_progress;
// browser_downloads shows it completed once its last byte arrived. One
// still running when the session closes is cancelled and leaves nothing.
// The browser gives each session a context of its own (Isolated), whose
// download behaviour is set for that context.
func TestDownloadInProgressThenCompleted(t *testing.T) {
	t.Parallel()
	timings := chromium.DefaultTimings()
	timings.SettleLoad = time.Second
	p, err := chromium.Launch(context.Background(), chromium.Options{Timings: &timings, Isolated: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	rt, err := New(p, Options{Store: store.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	release := make(chan struct{})
	released := func() chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		return release
	}
	const size = 200_000
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<main><h1>Backups</h1><p>Export your mailbox.</p><a href="/export">Export mailbox</a></main>`)
	})
	mux.HandleFunc("/export", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="mailbox.mbox"`)
		w.Header().Set("Content-Length", fmt.Sprint(size))
		body := pattern(size)
		w.Write(body[:1000])
		w.(http.Flusher).Flush()
		select {
		case <-released():
			w.Write(body[1000:])
		case <-r.Context().Done():
		}
	})
	base := browsertest.ServeHandler(t, mux)
	// Runs before the server's Close, which would wait forever for the
	// held download if the test failed before releasing it.
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free)
	ctx := browsertest.Context(t, time.Minute)
	dir := t.TempDir()
	s, err := rt.NewSession(ctx, SessionOptions{DownloadDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	_, act := clickNamed(t, s, res, "Export mailbox")
	if act.Download == nil || act.Download.State != browser.DownloadInProgress {
		t.Fatalf("download %+v", act.Download)
	}
	free()
	var v projection.DownloadsView
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, err := s.Call(ctx, "browser_downloads", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(out.View, &v)
		if len(v.Downloads) == 1 && v.Downloads[0].State != browser.DownloadInProgress {
			break
		}
	}
	if len(v.Downloads) != 1 || v.Downloads[0].State != browser.DownloadCompleted || v.Downloads[0].SHA256 != hexSHA(pattern(size)) {
		t.Fatalf("downloads %+v", v)
	}
	os.Remove(filepath.Join(dir, "mailbox.mbox"))

	// One still running at close.
	mu.Lock()
	release = make(chan struct{})
	mu.Unlock()
	res, err = s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	clickNamed(t, s, res, "Export mailbox")
	s.Close(ctx)
	close(released())
	time.Sleep(500 * time.Millisecond) // what the browser would still write
	if got := dirFiles(t, dir); len(got) != 0 {
		t.Fatalf("after close the directory holds %v", got)
	}
}
