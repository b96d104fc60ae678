package hosted_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/internal/proc"
	"github.com/veetbot/veetbrowser/sidecar"
	"github.com/veetbot/veetbrowser/sidecar/sidecartest"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

// benchVersion is the tool version every benchmark session is pinned to:
// the one with the reading cursor.
const benchVersion = "1.6.0"

// benchPage is a realistic article: about 200 controls (navigation,
// see-also and footnote links, a search form) and enough text that
// reading it takes several observations.
func benchPage(b testing.TB) string {
	return browsertest.Serve(b, pages.NewArticle(pages.ArticleOptions{Paragraphs: 120, NavLinks: 160}).HTML)
}

// BenchmarkObserveLocal observes a page b.N times on a local session,
// recording into a SQLite store as the sidecar does: the baseline of
// BenchmarkObserveHosted.
func BenchmarkObserveLocal(b *testing.B) {
	benchObserve(b, openLocal(b, filepath.Join(b.TempDir(), "local.db")), benchPage(b))
}

// BenchmarkObserveLocalNoStore is BenchmarkObserveLocal without
// recording: what the store costs a call.
func BenchmarkObserveLocalNoStore(b *testing.B) {
	benchObserve(b, openLocal(b, store.None), benchPage(b))
}

// BenchmarkObserveHosted observes the same page b.N times through a
// sidecar on loopback, over HTTP. Besides the latency it reports the hop:
// what each call took at the client minus what the runtime took in the
// sidecar (its Server-Timing), that is the HTTP exchange and the JSON of
// the view and the canonical observation both ways.
func BenchmarkObserveHosted(b *testing.B) { benchHosted(b, benchPage(b), benchVersion, false) }

// BenchmarkObserveHostedViewOnly is BenchmarkObserveHosted for a client
// that takes the view only (hosted.Options.ViewOnly), as MCP does.
func BenchmarkObserveHostedViewOnly(b *testing.B) { benchHosted(b, benchPage(b), benchVersion, true) }

// benchHosted observes page b.N times through a sidecar, on a session
// pinned to version, and reports the hop.
func benchHosted(b *testing.B, page, version string, viewOnly bool) {
	url, token := startSidecar(b, sidecar.Launched{}, 0)
	ctx := context.Background()
	hop := &hopTimer{}
	o := hosted.Options{URL: url, Token: token, Profile: "bench", Session: veetbrowser.SessionOptions{Version: version},
		HTTPClient: &http.Client{Transport: hop}, ViewOnly: viewOnly}
	if err := hosted.CreateProfile(ctx, o); err != nil {
		b.Fatal(err)
	}
	s, err := hosted.Open(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background()) })
	took := benchObserve(b, s, page)
	hop.report(b, took)
}

// hopTimer is a transport that reads the sidecar's Server-Timing of each
// page call: what the runtime took there.
type hopTimer struct {
	mu     sync.Mutex
	server []time.Duration
}

func (h *hopTimer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	var ms float64
	if _, serr := fmt.Sscanf(resp.Header.Get("Server-Timing"), "call;dur=%g", &ms); serr == nil {
		h.mu.Lock()
		h.server = append(h.server, time.Duration(ms*float64(time.Millisecond)))
		h.mu.Unlock()
	}
	return resp, nil
}

// report gives the hop's p50 and p95 in ms: each call's time at the
// client (took, in order) minus the runtime's time in the sidecar.
func (h *hopTimer) report(b *testing.B, took []time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// The observes are the last calls; the navigate came before them.
	if len(h.server) < len(took) {
		b.Fatalf("%d Server-Timings for %d calls", len(h.server), len(took))
	}
	server := h.server[len(h.server)-len(took):]
	hops := make([]time.Duration, len(took))
	for i := range took {
		// A call takes longer at the client than in the sidecar: a hop
		// below zero pairs the timings of different calls.
		if hops[i] = took[i] - server[i]; hops[i] < -time.Millisecond/100 {
			b.Fatalf("call %d took %v at the client, %v in the sidecar: the timings are not paired call by call", i, took[i], server[i])
		}
	}
	slices.Sort(hops)
	inSidecar := slices.Sorted(slices.Values(server))
	b.ReportMetric(float64(inSidecar[len(inSidecar)/2].Microseconds())/1000, "server-p50-ms")
	b.ReportMetric(float64(hops[len(hops)/2].Microseconds())/1000, "hop-p50-ms")
	b.ReportMetric(float64(hops[len(hops)*95/100].Microseconds())/1000, "hop-p95-ms")
}

// openLocal opens a session on a Chromium of its own, as the sidecar
// gives each lease one.
func openLocal(b testing.TB, storeSpec string) veetbrowser.Caller {
	ctx := context.Background()
	p, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close(context.Background()) })
	st, err := storespec.Open(ctx, storeSpec)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	rt, err := veetbrowser.New(p, veetbrowser.Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close(context.Background()) })
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{Version: benchVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// benchObserve navigates s to page once, then times b.N observations of
// it.
func benchObserve(b *testing.B, s veetbrowser.Caller, page string) []time.Duration {
	ctx := context.Background()
	if _, err := s.Call(ctx, tools.Navigate, navigateArgs(page)); err != nil {
		b.Fatal(err)
	}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := s.Call(ctx, tools.Observe, json.RawMessage(`{}`)); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportLatency(b, took)
	return took
}

// loadLeases is how many leases BenchmarkLoad drives at once.
const loadLeases = 8

// BenchmarkLoad drives loadLeases leases of one sidecar at once, each a
// Chromium of its own on its own profile, for VEETBROWSER_LOAD_SECONDS
// (default 60) whatever b.N is: each reads the bench page again and again
// (navigate, observe, then observe each view's next until there is
// none). It reports the calls per second, their latency, the failed
// calls, and the memory of the sidecar process (which runs in this one,
// with its clients) and of the browsers.
func BenchmarkLoad(b *testing.B) {
	seconds := 60
	if v := os.Getenv("VEETBROWSER_LOAD_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("VEETBROWSER_LOAD_SECONDS must be a positive number of seconds, not %q", v)
		}
		seconds = n
	}
	browsers := &recorded{}
	url, token := startSidecar(b, browsers, loadLeases)
	page := benchPage(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadLeases}}
	ctx := context.Background()
	sessions := make([]*hosted.Session, loadLeases)
	for i := range sessions {
		o := hosted.Options{URL: url, Token: token, Profile: fmt.Sprintf("load%d", i), HTTPClient: client,
			Session: veetbrowser.SessionOptions{Version: benchVersion}}
		if err := hosted.CreateProfile(ctx, o); err != nil {
			b.Fatal(err)
		}
		s, err := hosted.Open(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close(context.Background()) })
		sessions[i] = s
	}

	var (
		mu     sync.Mutex
		took   []time.Duration
		errors int
		pages  int
	)
	call := func(s *hosted.Session, tool string, args json.RawMessage) *veetbrowser.Result {
		start := time.Now()
		res, err := s.Call(ctx, tool, args)
		d := time.Since(start)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errors++
			b.Logf("%s: %v", tool, err)
			return nil
		}
		took = append(took, d)
		return res
	}

	b.ResetTimer()
	start := time.Now()
	deadline := start.Add(time.Duration(seconds) * time.Second)
	var peakSidecar, peakBrowsers, peakBrowsersPss int64
	sample := func() {
		peakSidecar = max(peakSidecar, memKB(os.Getpid(), "status", "VmRSS:"))
		peakBrowsers = max(peakBrowsers, browsers.memKB("status", "VmRSS:"))
		peakBrowsersPss = max(peakBrowsersPss, browsers.memKB("smaps_rollup", "Pss:"))
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if call(s, tools.Navigate, navigateArgs(page)) == nil {
					continue
				}
				args := json.RawMessage(`{}`)
				// The page's text fills a few windows; a view that never
				// ends the reading would be a bug, counted as an error.
				for step := 0; ; step++ {
					res := call(s, tools.Observe, args)
					if res == nil {
						break
					}
					if args = nextArgs(res.View); args == nil {
						mu.Lock()
						pages++
						mu.Unlock()
						break
					}
					if time.Now().After(deadline) {
						break
					}
					if step == 100 {
						mu.Lock()
						errors++
						mu.Unlock()
						b.Log("the reading did not end in 100 observations")
						break
					}
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(2 * time.Second)
	for waiting := true; waiting; {
		select {
		case <-tick.C:
			sample()
		case <-done:
			waiting = false
		}
	}
	tick.Stop()
	elapsed := time.Since(start)
	sample()
	b.StopTimer()

	b.ReportMetric(float64(len(took))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(errors), "errors")
	b.ReportMetric(float64(peakSidecar)/1024, "sidecar-rss-MB")
	b.ReportMetric(float64(peakBrowsers)/1024, "browsers-rss-MB")
	b.ReportMetric(float64(peakBrowsersPss)/1024, "browsers-pss-MB")
	b.ReportMetric(float64(browsers.count()), "browsers")
	reportLatency(b, took)
}

// startSidecar serves a sidecar on 127.0.0.1 for the benchmark; it
// returns its URL and a token.
func startSidecar(b *testing.B, browsers sidecar.Browsers, maxLeases int) (url, token string) {
	sc := sidecartest.Start(b, browsers, maxLeases)
	return sc.URL, sc.Token
}

// recorded launches each lease's browser as the sidecar does and keeps
// them, to measure their memory.
type recorded struct {
	mu       sync.Mutex
	launched []*chromium.Provider
}

func (r *recorded) Open(ctx context.Context, profileDir string) (browser.Provider, error) {
	p, err := sidecar.Launched{}.Open(ctx, profileDir)
	if err != nil {
		return nil, err
	}
	if c, ok := p.(*chromium.Provider); ok {
		r.mu.Lock()
		r.launched = append(r.launched, c)
		r.mu.Unlock()
	}
	return p, nil
}

func (r *recorded) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.launched)
}

// memKB sums one memory figure (memKB's file and field) over every
// process of the browsers: each runs in a process group of its own, led
// by its main process. VmRSS counts pages shared between processes once
// per process; Pss shares them out.
func (r *recorded) memKB(file, field string) int64 {
	r.mu.Lock()
	var leaders []int
	for _, p := range r.launched {
		if pid := p.Process(); pid > 0 {
			leaders = append(leaders, pid)
		}
	}
	r.mu.Unlock()
	var sum int64
	for _, leader := range leaders {
		for _, pid := range proc.Group(leader) {
			sum += memKB(pid, file, field)
		}
	}
	return sum
}

// memKB reads one figure in KiB, field of /proc/pid/file (VmRSS of
// status, Pss of smaps_rollup); 0 if the process is gone.
func memKB(pid int, file, field string) int64 {
	text, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(text)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// reportLatency reports the median and 95th percentile of took in ms. It
// sorts a copy: took stays in the calls' order, which the hop's report
// pairs with the sidecar's timings call by call.
func reportLatency(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	took = slices.Sorted(slices.Values(took))
	at := func(p int) float64 { return float64(took[(len(took)-1)*p/100]) / float64(time.Millisecond) }
	b.ReportMetric(at(50), "p50-ms")
	b.ReportMetric(at(95), "p95-ms")
}

func navigateArgs(url string) json.RawMessage {
	args, _ := json.Marshal(tools.NavigateArgs{URL: url})
	return args
}

// nextArgs returns a view's next, the arguments of the observation that
// reads on; nil when the view has none.
func nextArgs(view json.RawMessage) json.RawMessage {
	var v struct {
		Next json.RawMessage `json:"next"`
	}
	if json.Unmarshal(view, &v) != nil || len(v.Next) == 0 || string(v.Next) == "null" {
		return nil
	}
	return v.Next
}
