package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// EnvSoak runs TestHTTPSoak for the duration it names (e.g. 60s); unset,
// the soak is skipped, so it never adds to the normal test run.
const EnvSoak = "VEETBROWSER_SOAK"

// TestHTTPSoak drives 20 concurrent HTTP MCP sessions through navigate,
// observe and a click on a loopback page for the duration of
// $VEETBROWSER_SOAK, on a browser of its own, and reports throughput,
// latency, errors, memory, and the browser's processes once every session
// has ended.
func TestHTTPSoak(t *testing.T) {
	d := os.Getenv(EnvSoak)
	if d == "" {
		t.Skip("set " + EnvSoak + "=60s to run the soak")
	}
	duration, err := time.ParseDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	const clients = 20

	p, err := chromium.Launch(context.Background(), chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	pages := &countingProvider{Provider: p}
	rt, err := veetbrowser.New(pages, veetbrowser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hctx, stop := context.WithCancel(context.Background())
	defer stop()
	handler, err := HTTPHandler(hctx, rt, Options{}, HTTPOptions{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()

	var clicks atomic.Int64
	site := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/clicked" {
			clicks.Add(1)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>soak</title><h1>Counter</h1><p>A page to click.</p>`+
			`<button onclick="fetch('/clicked', {method: 'POST'})">Increment</button><a href="#top">Top</a>`)
	}))

	heapStart := heap()
	memStart, procsStart := browserProcesses(p.Process())
	t.Logf("start: server heap %s, browser PSS %s in %d processes %v", mib(heapStart), mib(memStart), len(procsStart), procsStart)

	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      []string // the first few failures
		errCount  int
	)
	record := func(d time.Duration, err string) {
		mu.Lock()
		defer mu.Unlock()
		if d > 0 { // a call; 0 is a failure outside one
			latencies = append(latencies, d)
		}
		if err != "" && len(errs) < 5 {
			errs = append(errs, err)
		}
		if err != "" {
			errCount++
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), duration+2*time.Minute)
	defer cancel()
	begin := time.Now()
	end := begin.Add(duration)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: "soak"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL,
				HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}}}, nil)
			if err != nil {
				record(0, "connect: "+err.Error())
				return
			}
			defer cs.Close()
			callTool := func(name string, args map[string]any) string {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				switch {
				case err != nil:
					record(time.Since(start), name+": "+err.Error())
					return ""
				case res.IsError:
					record(time.Since(start), name+": "+res.Content[0].(*mcp.TextContent).Text)
					return ""
				}
				record(time.Since(start), "")
				return res.Content[0].(*mcp.TextContent).Text
			}
			for time.Now().Before(end) {
				callTool("browser_navigate", map[string]any{"url": site})
				view := callTool("browser_observe", map[string]any{})
				i := strings.Index(view, `"name":"Increment"`)
				if i < 0 {
					if view != "" { // a failed observe is counted already
						record(0, "observe: no Increment button: "+view)
					}
					continue
				}
				j := strings.LastIndex(view[:i], `"ref":"`)
				ref := view[j+len(`"ref":"`):]
				ref = ref[:strings.IndexByte(ref, '"')]
				callTool("browser_act", map[string]any{"kind": "click", "ref": ref})
			}
		})
	}
	// Halfway, with every session live: how the browser spreads the pages.
	time.Sleep(duration / 2)
	memMid, procsMid := browserProcesses(p.Process())
	t.Logf("halfway: %d pages open, browser PSS %s in %d processes %v", pages.open.Load(), mib(memMid), len(procsMid), procsMid)
	wg.Wait()
	elapsed := time.Since(begin)
	// Every client has sent its DELETE: every page must be closed.
	pages.waitPages(t, 0, 30*time.Second)
	stop()
	time.Sleep(2 * time.Second) // let the browser reap its renderers

	heapEnd := heap()
	memEnd, procsEnd := browserProcesses(p.Process())
	slices.Sort(latencies)
	t.Logf("%d clients for %s: %d calls, %.1f calls/s, p50 %s, p95 %s, max %s, %d errors %q, %d clicks recorded",
		clients, elapsed.Round(time.Millisecond), len(latencies), float64(len(latencies))/elapsed.Seconds(),
		percentile(latencies, 50), percentile(latencies, 95), percentile(latencies, 100), errCount, errs, clicks.Load())
	t.Logf("end: server heap %s, browser PSS %s in %d processes %v", mib(heapEnd), mib(memEnd), len(procsEnd), procsEnd)
	if errCount > 0 {
		t.Errorf("%d calls failed", errCount)
	}
	if count(procsEnd, "renderer") > count(procsStart, "renderer") {
		t.Errorf("renderers left after every session ended: %v, at the start %v", procsEnd, procsStart)
	}
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)].Round(time.Millisecond)
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// browserProcesses returns the memory of the browser process and its
// descendants, as the sum of their PSS (shared pages counted once, not per
// process as RSS would), and their kinds ("browser", or Chromium's --type).
func browserProcesses(root int) (uint64, []string) {
	parent := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if len(fields) > 1 {
			parent[pid], _ = strconv.Atoi(fields[1])
		}
	}
	inTree := func(pid int) bool {
		for ; pid > 1; pid = parent[pid] {
			if pid == root {
				return true
			}
		}
		return false
	}
	var pss uint64
	var kinds []string
	for pid := range parent {
		if !inTree(pid) {
			continue
		}
		kind := "browser"
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
			// Chromium rewrites the command line of its children: spaces
			// or NULs may separate the arguments.
			for _, arg := range strings.FieldsFunc(string(cmd), func(r rune) bool { return r == 0 || r == ' ' }) {
				if t, ok := strings.CutPrefix(arg, "--type="); ok {
					kind = t
				}
			}
		}
		kinds = append(kinds, kind)
		if rollup, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid)); err == nil {
			for _, line := range strings.Split(string(rollup), "\n") {
				if v, ok := strings.CutPrefix(line, "Pss:"); ok {
					kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
					pss += kb << 10
				}
			}
		}
	}
	slices.Sort(kinds)
	return pss, kinds
}
