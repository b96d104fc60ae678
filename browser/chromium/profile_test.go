package chromium

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/proc"
)

// profileSite sets a persistent cookie and a localStorage item at /set and
// records the Cookie header of every request to /read.
type profileSite struct {
	url string

	mu      sync.Mutex
	cookies []string
}

func serveProfileSite(t *testing.T) *profileSite {
	site := &profileSite{}
	site.url = browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/set":
			w.Header().Set("Set-Cookie", "kept=yes; Max-Age=3600; Path=/")
			fmt.Fprint(w, `<script>localStorage.setItem('kept', 'yes')</script><button>set</button>`)
		case "/read":
			site.mu.Lock()
			site.cookies = append(site.cookies, r.Header.Get("Cookie"))
			site.mu.Unlock()
			fmt.Fprint(w, `<button>read</button>`)
		default:
			http.NotFound(w, r)
		}
	}))
	return site
}

func (site *profileSite) lastCookie() string {
	site.mu.Lock()
	defer site.mu.Unlock()
	return site.cookies[len(site.cookies)-1]
}

// launchOn launches a browser on the persistent profile dir and opens a page.
func launchOn(t *testing.T, dir string) (*Provider, *Session) {
	t.Helper()
	p, err := Launch(context.Background(), Options{UserDataDir: dir})
	if err != nil {
		// The cause is what Chromium printed: a public error leaves it out.
		t.Fatalf("%v (cause: %v)", err, errors.Unwrap(err))
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	s, err := p.NewSession(browsertest.Context(t, time.Minute), browser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p, s.(*Session)
}

// setState sets the site's cookie and localStorage item in s.
func (site *profileSite) setState(t *testing.T, s *Session) {
	t.Helper()
	if _, err := s.Navigate(browsertest.Context(t, time.Minute), site.url+"set"); err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, `localStorage.getItem('kept') || ''`); got != "yes" {
		t.Fatalf("localStorage item after setting it: %q", got)
	}
}

// state returns the Cookie header the site saw from s and the localStorage
// item s has.
func (site *profileSite) state(t *testing.T, s *Session) (cookie, stored string) {
	t.Helper()
	if _, err := s.Navigate(browsertest.Context(t, time.Minute), site.url+"read"); err != nil {
		t.Fatal(err)
	}
	return site.lastCookie(), evalMain(t, s, `localStorage.getItem('kept') || ''`)
}

// TestProfileKeepsStateAcrossLaunches: a cookie and a localStorage item set
// in a browser on profile P are there in the next browser on P after Close,
// and not in a browser on another profile Q. Close removes the browser's
// temp dir but keeps the profile, which it created 0700.
func TestProfileKeepsStateAcrossLaunches(t *testing.T) {
	site := serveProfileSite(t)
	before := tempDirs(t)
	profiles := filepath.Join(t.TempDir(), "profiles")
	dirP, dirQ := filepath.Join(profiles, "p"), filepath.Join(profiles, "q")

	p, s := launchOn(t, dirP)
	site.setState(t, s)
	pid := p.Process()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantBrowserGone(t, before, pid)
	fi, err := os.Stat(dirP)
	if err != nil {
		t.Fatalf("the profile after Close: %v", err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("the profile was created %v, want 0700", fi.Mode().Perm())
	}

	_, s = launchOn(t, dirP)
	if cookie, stored := site.state(t, s); cookie != "kept=yes" || stored != "yes" {
		t.Errorf("on the same profile after Close: cookie %q, localStorage %q; want both kept", cookie, stored)
	}
	_, s = launchOn(t, dirQ)
	if cookie, stored := site.state(t, s); cookie != "" || stored != "" {
		t.Errorf("on another profile: cookie %q, localStorage %q; want neither", cookie, stored)
	}
}

// TestProfileRelaunchAfterDeathKeepsTheProfile: when the browser on P dies,
// the next session starts a fresh browser on P, with what P holds.
func TestProfileRelaunchAfterDeathKeepsTheProfile(t *testing.T) {
	site := serveProfileSite(t)
	dir := t.TempDir()
	p, s := launchOn(t, dir)
	site.setState(t, s)
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	p, _ = launchOn(t, dir)
	old := p.Process()
	if err := syscall.Kill(-old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for p.Process() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the provider did not notice the browser's death within 1 min")
		}
		time.Sleep(50 * time.Millisecond)
	}
	bs, err := p.NewSession(browsertest.Context(t, time.Minute), browser.SessionOptions{})
	if err != nil {
		t.Fatalf("a session after the browser died: %v", err)
	}
	fresh := p.Process()
	if fresh == 0 || fresh == old || !runsOnProfile(fresh, dir) {
		t.Fatalf("the fresh browser %d (the dead one %d) does not run on the profile", fresh, old)
	}
	if cookie, stored := site.state(t, bs.(*Session)); cookie != "kept=yes" || stored != "yes" {
		t.Errorf("in the fresh browser: cookie %q, localStorage %q; want both kept", cookie, stored)
	}
}

// TestProfileSurvivesSIGKILL: the process that launched a browser on
// profile P is killed with SIGKILL, before Chromium wrote the cookie out on
// its own; the cookie and the localStorage item are there in the next
// browser on P. The killed process is a copy of this test binary, so only
// it, not the browser, gets the signal.
func TestProfileSurvivesSIGKILL(t *testing.T) {
	if dir := os.Getenv(profileChildEnv); dir != "" {
		profileChild(t, dir, os.Getenv(profileChildURLEnv))
		return
	}
	site := serveProfileSite(t)
	dir := filepath.Join(t.TempDir(), "profile")

	child := exec.Command(os.Args[0], "-test.run=^TestProfileSurvivesSIGKILL$", "-test.count=1")
	// The child's test main makes its own temp dirs under the TMPDIR it
	// gets: the one this binary's main got, as Chromium's socket path
	// under them must stay short. The killed child cannot remove them, so
	// it says which they are.
	child.Env = append(os.Environ(), profileChildEnv+"="+dir, profileChildURLEnv+"="+site.url, "TMPDIR="+filepath.Dir(os.TempDir()))
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	type readiness struct {
		pid  int
		dirs []string
	}
	ready := make(chan readiness, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "ready" {
				n, _ := strconv.Atoi(f[1])
				ready <- readiness{n, f[2:]}
			} else {
				t.Logf("child: %s", sc.Text())
			}
		}
		close(ready)
	}()
	var r readiness
	select {
	case r = <-ready:
	case <-time.After(2 * time.Minute):
		t.Fatal("the child did not set the state within 2 min")
	}
	if r.pid == 0 {
		t.Fatal("the child ended without setting the state")
	}
	pid := r.pid
	for _, d := range r.dirs {
		t.Cleanup(func() { removeAll(d) })
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	deadline := time.Now().Add(time.Minute)
	for proc.GroupAlive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatal("the browser of the killed process still ran after 1 min")
		}
		time.Sleep(50 * time.Millisecond)
	}

	_, s := launchOn(t, dir)
	if cookie, stored := site.state(t, s); cookie != "kept=yes" || stored != "yes" {
		t.Errorf("after the launching process was killed: cookie %q, localStorage %q; want both kept", cookie, stored)
	}
}

const (
	profileChildEnv    = "VEETBROWSER_TEST_PROFILE_CHILD"
	profileChildURLEnv = "VEETBROWSER_TEST_PROFILE_URL"
)

// profileChild sets the site's state in a browser on dir, says so, and
// waits to be killed.
func profileChild(t *testing.T, dir, url string) {
	p, s := launchOn(t, dir)
	(&profileSite{url: url}).setState(t, s)
	fmt.Printf("ready %d %s %s\n", p.Process(), os.TempDir(), os.Getenv("XDG_DATA_HOME"))
	time.Sleep(5 * time.Minute)
	t.Fatal("the child was not killed")
}

// TestProfileStaleLockFiles: lock files that a killed browser left in the
// profile do not stop the next launch, whatever they point at: another
// host (a container that was replaced: Chromium itself refuses to start on
// such a lock), a process of this host that is gone, or a live process of
// this host that is not a browser on this profile (a pid reused, here the
// shared browser's), which must be neither waited for nor harmed.
func TestProfileStaleLockFiles(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	other := shared.Get(t).Process()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for name, lock := range map[string]string{
		"another host": "elsewhere.invalid-4242",
		"a gone pid":   fmt.Sprintf("%s-%d", host, gone.Process.Pid),
		"a reused pid": fmt.Sprintf("%s-%d", host, other),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			links := map[string]string{
				"SingletonLock":   lock,
				"SingletonSocket": filepath.Join(dir, "gone", "SingletonSocket"),
				"SingletonCookie": "1234567890",
			}
			for file, target := range links {
				if err := os.Symlink(target, filepath.Join(dir, file)); err != nil {
					t.Fatal(err)
				}
			}
			p, s := launchOn(t, dir)
			if _, err := s.Navigate(browsertest.Context(t, time.Minute), browsertest.Serve(t, "<button>x</button>")); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if !processAlive(other) {
				t.Fatal("the process the stale lock named was killed")
			}
		})
	}
}

// TestProfileInUseWaitsForItsBrowser: a launch on a profile that a live
// browser runs on waits for that browser to end rather than start a second
// one on it: until its context ends, or until the first browser is closed.
func TestProfileInUseWaitsForItsBrowser(t *testing.T) {
	dir := t.TempDir()
	first, s := launchOn(t, dir)
	short, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if p, err := Launch(short, Options{UserDataDir: dir}); err == nil {
		p.Close(context.Background())
		t.Fatal("a second browser launched on a profile in use")
	} else {
		wantCode(t, err, errcode.Timeout)
	}
	if _, err := s.Navigate(browsertest.Context(t, time.Minute), browsertest.Serve(t, "<button>x</button>")); err != nil {
		t.Fatalf("the first browser after the refused launch: %v", err)
	}

	launched := make(chan error, 1)
	go func() {
		p, err := Launch(context.Background(), Options{UserDataDir: dir})
		if err == nil {
			t.Cleanup(func() { p.Close(context.Background()) })
		}
		launched <- err
	}()
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-launched:
		if err != nil {
			t.Fatalf("the launch waiting for the profile: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the launch waiting for the profile did not start within 1 min of its release")
	}
}

// TestProfileAttachRefusesUserDataDir: an attached browser has its own
// profile; asking for one is refused, not ignored.
func TestProfileAttachRefusesUserDataDir(t *testing.T) {
	t.Parallel()
	p, err := Attach(context.Background(), "ws://127.0.0.1:9/devtools/browser/none", Options{UserDataDir: t.TempDir()})
	if p != nil {
		p.Close(context.Background())
	}
	wantCode(t, err, errcode.InvalidArgument)
}

// TestProfileContainedSessionKeepsTheProfile: a contained session of a
// browser on a persistent profile stays in the profile's own browser
// context, with the user's cookies and storage, and is covered by the egress
// proxy the browser was launched with (docs/navigation.md, "The egress
// proxy"): a context of its own behind a proxy of its own would see neither
// cookies nor storage. What Fetch does not pause (workers' WebSockets and a
// shared worker's fetch, a preconnect hint) towards an origin outside the
// containment reaches nothing and is counted.
func TestProfileContainedSessionKeepsTheProfile(t *testing.T) {
	site := serveProfileSite(t)
	tracker := browsertest.ServeCounted(t, "127.0.0.2:0", nil)
	scores := browsertest.ServeCounted(t, "127.0.0.1:0", reachingPage(tracker.URL))
	p, s := launchOn(t, filepath.Join(t.TempDir(), "profile"))
	site.setState(t, s)
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	origins := []string{strings.TrimSuffix(site.url, "/"), scores.URL}
	contain := func(_ context.Context, u *url.URL) error {
		if slices.Contains(origins, u.Scheme+"://"+u.Host) {
			return nil
		}
		return errcode.New(errcode.ForeignOrigin, "outside the containment")
	}
	cs, err := p.NewSession(browsertest.Context(t, time.Minute), browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true,
		CheckRequest: contain, Contain: origins, NoServiceWorkers: true})
	if err != nil {
		t.Fatal(err)
	}
	contained := cs.(*Session)
	if contained.requests.Contain == nil || !contained.requests.Proxied {
		t.Fatalf("the contained session on a profile: containment %+v, want it behind the browser's proxy", contained.requests.Contain)
	}
	if cookie, stored := site.state(t, contained); cookie != "kept=yes" || stored != "yes" {
		t.Errorf("a contained session on the profile: cookie %q, localStorage %q; want the profile's", cookie, stored)
	}
	obs, err := contained.Navigate(browsertest.Context(t, time.Minute), scores.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	_, counts := settled(t, contained, obs, "page: socket failed", "worker: socket failed, fetch failed", "shared: socket failed, fetch failed")
	if n, c := tracker.Requests.Load(), tracker.Conns.Load(); n != 0 || c != 0 {
		t.Fatalf("the tracker got %d requests over %d connections: %v", n, c, tracker.Seen())
	}
	if ws := strings.Replace(tracker.URL, "http://", "ws://", 1); counts[ws] != 3 || counts[tracker.URL] != 3 {
		t.Errorf("blocked %v, want 3 WebSockets under %s and 3 fetches under %s", counts, ws, tracker.URL)
	}
}
