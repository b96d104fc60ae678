package peerbench

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/benchpages"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// EnvPeers names the variable listing the peers BenchmarkPeers runs beside
// veetbrowser: name=command line, separated by ";", each command line's
// arguments separated by spaces (no quoting), e.g.
//
//	playwright-mcp=playwright-mcp --headless --isolated --executable-path /usr/bin/chromium;devtools=chrome-devtools-mcp ...
//
// Each command line must name the Chromium veetbrowser runs
// (browser.FindChromium), so that every server drives the same browser.
const EnvPeers = "VEET_PEERS"

// EnvBinary names the variable that gives a veetbrowser binary to run in
// place of one built from the tree: two builds are compared side by side
// by runs that alternate them, each run starting the binary it is given.
const EnvBinary = "VEET_BIN"

// defaultRounds is a batch's rounds (each call timed once per server and
// page) when -benchtime is not a count (Nx).
const defaultRounds = 10

// callTimeout bounds one tool call.
const callTimeout = 2 * time.Minute

// BenchmarkPeers navigates to each page of the small-page set and of the
// navigation set (package benchpages) with each server, and observes the
// small pages and the plain article: veetbrowser's browser_navigate and
// browser_observe at the newest tool version, each peer's own navigate and
// snapshot tools. veetbrowser (built from the tree, or the binary
// $VEET_BIN names) runs twice: as "veetbrowser", recording into
// a SQLite store as a user's default does, and as "veetbrowser-nostore",
// recording nothing (--store none), so that what the record's durable
// write costs over MCP is measured beside the rest. The servers are
// started once and warmed (one navigate and observe per page each) before
// anything is timed.
//
// The timed calls are interleaved: a batch is rounds in which every server
// in turn visits every page (the servers' order rotating each round), so a
// machine's changing load falls on each server alike; -benchtime Nx sets N
// rounds a batch (default 10). The sub-benchmarks op/page/server take one
// batch's numbers per run (each of -count runs takes its own batch) and
// report the median call as ns/op and the median answer's size (the text
// and image bytes the model is given) as B/answer; a navigation page's
// navigate reports the fraction of answers that name its final URL as
// landed (a server that returned before the redirect would not). They time
// nothing themselves, since one server's calls alone are not interleaved.
//
// view/page/server is the time until an agent holds a view of a page it
// navigated to, on every page: veetbrowser's navigate, whose answer is the
// page's first view, and a peer's navigate plus the snapshot it calls next
// (on a navigation page other than the plain article, an extra snapshot
// call that is timed for this sum alone). The two calls' times are added:
// the client's own time between them is not counted.
func BenchmarkPeers(b *testing.B) {
	spec := os.Getenv(EnvPeers)
	if spec == "" {
		b.Skip("set " + EnvPeers + " to the peers' command lines to run the side-by-side benchmark")
	}
	chromium, err := browser.FindChromium("")
	if err != nil {
		b.Fatal(err)
	}
	peers, err := parsePeers(spec)
	if err != nil {
		b.Fatal(err)
	}
	pages := servePages(b)
	ctx := browsertest.Context(b, time.Hour)
	bin := buildVeetbrowser(b, ctx)
	servers := []*server{startVeetbrowser(b, ctx, "veetbrowser", bin, b.TempDir()+"/artifacts.db", chromium, pages),
		startVeetbrowser(b, ctx, "veetbrowser-nostore", bin, "none", chromium, pages)}
	for _, p := range peers {
		if !strings.Contains(strings.Join(p.args, " "), chromium) {
			b.Fatalf("peer %s: its command line must name the same Chromium, %s", p.name, chromium)
		}
		servers = append(servers, start(b, ctx, p.name, exec.Command(p.args[0], p.args[1:]...)))
	}
	for _, s := range servers {
		for _, p := range pages {
			s.call(b, ctx, "navigate", p.url)
			if p.observe {
				s.call(b, ctx, "observe", "")
			}
		}
	}
	m := &measure{ctx: ctx, servers: servers, pages: pages, rounds: rounds(), batches: map[string][]result{}}
	for _, op := range []string{"navigate", "observe", "view"} {
		for _, p := range pages {
			if op == "observe" && !p.observe {
				continue
			}
			for _, s := range servers {
				key := op + "/" + p.name + "/" + s.name
				b.Run(key, func(b *testing.B) {
					r := m.next(b, key)
					for b.Loop() {
					}
					b.ReportMetric(float64(r.took), "ns/op")
					b.ReportMetric(float64(r.size), "B/answer")
					if op == "navigate" && p.final != "" {
						b.ReportMetric(r.landed, "landed")
					}
				})
			}
		}
	}
}

// measure runs the interleaved batches and hands each sub-benchmark its
// numbers, one batch per run.
type measure struct {
	ctx     context.Context
	servers []*server
	pages   []page
	rounds  int
	batches map[string][]result // by op/page/server, a batch's each, the next first
}

// result is one op's numbers in one batch: the median call, the median
// answer's size, and the fraction of navigations that ended at the final
// URL.
type result struct {
	took   time.Duration
	size   int
	landed float64
}

// next returns key's result of the next batch, running a batch when key has
// taken every batch run so far.
func (m *measure) next(b *testing.B, key string) result {
	if len(m.batches[key]) == 0 {
		m.batch(b)
	}
	r := m.batches[key][0]
	m.batches[key] = m.batches[key][1:]
	return r
}

// batch times m.rounds rounds of every page with every server.
func (m *measure) batch(b *testing.B) {
	timed := map[string]*samples{} // by op/page/server
	sample := func(op string, p page, s *server, d time.Duration, answer string) {
		key := op + "/" + p.name + "/" + s.name
		if timed[key] == nil {
			timed[key] = &samples{}
		}
		t := timed[key]
		t.took = append(t.took, d)
		t.size = append(t.size, len(answer))
		if op == "navigate" && p.final != "" && strings.Contains(answer, p.final) {
			t.landed++
		}
	}
	for r := range m.rounds {
		for _, p := range m.pages {
			for i := range m.servers {
				s := m.servers[(i+r)%len(m.servers)]
				d, answer := s.call(b, m.ctx, "navigate", p.url)
				sample("navigate", p, s, d, answer)
				view, viewAnswer := d, answer
				if p.observe || !s.tools.views {
					d, answer = s.call(b, m.ctx, "observe", "")
					if p.observe {
						sample("observe", p, s, d, answer)
					}
					if !s.tools.views {
						view, viewAnswer = view+d, answer
					}
				}
				sample("view", p, s, view, viewAnswer)
			}
		}
	}
	for key, t := range timed {
		m.batches[key] = append(m.batches[key], result{took: median(t.took), size: median(t.size),
			landed: float64(t.landed) / float64(len(t.took))})
	}
}

// samples are one op's timed calls of one server on one page, and how many
// of its navigations answered with the page's final URL.
type samples struct {
	took   []time.Duration
	size   []int
	landed int
}

// page is one URL the servers navigate to; observe says whether its view is
// timed too (a redirect's target is the plain page, timed once), final is
// the URL a navigation page ends at.
type page struct {
	name, url, final string
	observe          bool
}

// servePages serves the small pages and the navigation pages on loopback.
func servePages(b *testing.B) []page {
	var pages []page
	small := benchpages.ServeSmall(b)
	for _, name := range benchpages.Small {
		pages = append(pages, page{name: name, url: small[name], observe: true})
	}
	base := benchpages.ServeNavigation(b)
	for _, name := range benchpages.Navigation {
		pages = append(pages, page{name: name, url: base + name, final: base + "plain", observe: name == "plain"})
	}
	return pages
}

// rounds is a batch's rounds: the count -benchtime gives (Nx), else
// defaultRounds.
func rounds() int {
	if f := flag.Lookup("test.benchtime"); f != nil {
		if n, err := strconv.Atoi(strings.TrimSuffix(f.Value.String(), "x")); err == nil && strings.HasSuffix(f.Value.String(), "x") {
			return n
		}
	}
	return defaultRounds
}

// peer is one entry of $VEET_PEERS.
type peer struct {
	name string
	args []string
}

// parsePeers reads $VEET_PEERS: name=command line, separated by ";".
func parsePeers(spec string) ([]peer, error) {
	var peers []peer
	for entry := range strings.SplitSeq(spec, ";") {
		name, command, ok := strings.Cut(strings.TrimSpace(entry), "=")
		args := strings.Fields(command)
		if !ok || name == "" || strings.ContainsAny(name, "/ \t") || len(args) == 0 {
			return nil, fmt.Errorf("%s: %q is not name=command line (a name without / or spaces)", EnvPeers, entry)
		}
		if strings.HasPrefix(name, "veetbrowser") || slices.ContainsFunc(peers, func(p peer) bool { return p.name == name }) {
			return nil, fmt.Errorf("%s: the name %q is taken", EnvPeers, name)
		}
		peers = append(peers, peer{name: name, args: args})
	}
	return peers, nil
}

// buildVeetbrowser builds cmd/veetbrowser and returns the binary's path,
// or returns the one $VEET_BIN names.
func buildVeetbrowser(b *testing.B, ctx context.Context) string {
	if bin := os.Getenv(EnvBinary); bin != "" {
		if _, err := exec.LookPath(bin); err != nil {
			b.Fatalf("%s: %v", EnvBinary, err)
		}
		return bin
	}
	bin := b.TempDir() + "/veetbrowser"
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/veetbot/veetbrowser/cmd/veetbrowser")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building veetbrowser: %v\n%s", err, out)
	}
	return bin
}

// startVeetbrowser serves `veetbrowser mcp` as name on chromium, granted
// the pages' origins, recording into the store spec names: a SQLite file,
// as a user's default does, or none, which records nothing (what the
// record's write costs is the difference).
func startVeetbrowser(b *testing.B, ctx context.Context, name, bin, store, chromium string, pages []page) *server {
	args := []string{"mcp", "--browser", chromium, "--store", store}
	var origins []string
	for _, p := range pages {
		u, err := url.Parse(p.url)
		if err != nil {
			b.Fatal(err)
		}
		if origin := u.Scheme + "://" + u.Host; !slices.Contains(origins, origin) {
			origins = append(origins, origin)
			args = append(args, "--allow-origin", origin)
		}
	}
	return start(b, ctx, name, exec.Command(bin, args...))
}

// server is one MCP server under test and the tools it is driven with.
type server struct {
	name    string
	session *mcp.ClientSession
	tools   toolset
	stderr  *browsertest.Buffer
}

// toolset is how one kind of server navigates and observes; views says
// that its navigate answers with the page's view (veetbrowser's).
type toolset struct {
	navigate, observe string
	navigateArgs      func(url string) map[string]any
	views             bool
}

func urlArgs(url string) map[string]any { return map[string]any{"url": url} }

// toolsets are the servers known, told apart by their tools' names.
var toolsets = []toolset{
	{navigate: "browser_navigate", observe: "browser_observe", navigateArgs: urlArgs, views: true}, // veetbrowser
	{navigate: "browser_navigate", observe: "browser_snapshot", navigateArgs: urlArgs},             // @playwright/mcp
	{navigate: "navigate_page", observe: "take_snapshot", navigateArgs: func(url string) map[string]any { // chrome-devtools-mcp
		return map[string]any{"type": "url", "url": url}
	}},
}

// start runs cmd as an MCP server over stdio, in a process group of its own
// that is ended with b, and picks its toolset from the tools it lists.
func start(b *testing.B, ctx context.Context, name string, cmd *exec.Cmd) *server {
	s := &server{name: name, stderr: &browsertest.Buffer{}}
	cmd.Stderr = s.stderr
	cmd.Dir = b.TempDir() // where a server writes files of its own (@playwright/mcp: its snapshots)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+b.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "peerbench"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("starting %s: %v\n%s", name, err, s.stderr)
	}
	s.session = cs
	b.Cleanup(func() {
		cs.Close()
		// The server's browser, and a launcher's children (npx, env), go with its group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	info := cs.InitializeResult().ServerInfo
	b.Logf("%s: %s %s (%s)", name, info.Name, info.Version, strings.Join(cmd.Args, " "))
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			b.Fatalf("%s: listing tools: %v", name, err)
		}
		names = append(names, t.Name)
	}
	for _, ts := range toolsets {
		if slices.Contains(names, ts.navigate) && slices.Contains(names, ts.observe) {
			s.tools = ts
			return s
		}
	}
	b.Fatalf("%s: no known navigate and snapshot tools among %v", name, names)
	return nil
}

// call calls the server's navigate tool (to url) or observe tool and
// returns how long the call took and the answer: its text, and an image's
// data; a failed call ends the benchmark.
func (s *server) call(b *testing.B, ctx context.Context, op, url string) (time.Duration, string) {
	params := &mcp.CallToolParams{Name: s.tools.observe, Arguments: map[string]any{}}
	if op == "navigate" {
		params = &mcp.CallToolParams{Name: s.tools.navigate, Arguments: s.tools.navigateArgs(url)}
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	start := time.Now()
	res, err := s.session.CallTool(ctx, params)
	took := time.Since(start)
	if err != nil {
		b.Fatalf("%s %s %s: %v\n%s", s.name, params.Name, url, err, s.stderr)
	}
	var answer strings.Builder
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			answer.WriteString(c.Text)
		case *mcp.ImageContent:
			answer.Write(c.Data)
		}
	}
	if res.IsError {
		b.Fatalf("%s %s %s: %s", s.name, params.Name, url, answer.String())
	}
	return took, answer.String()
}

// median is the middle of v, which it sorts.
func median[T int | time.Duration](v []T) T {
	slices.Sort(v)
	return v[len(v)/2]
}
