package suite

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/loopback"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/tools"
)

// Result is one scenario's report: identifiers, outcome, operation counts,
// duration, expected and observed effects. Never page text.
type Result struct {
	ID         string         `json:"id"`
	Outcome    string         `json:"outcome"` // pass or fail
	Operations map[string]int `json:"operations"`
	// Calls and ViewBytes are the tool calls the agent made and the bytes
	// of the model views it was given: what the scenario cost a model.
	Calls      int      `json:"calls"`
	ViewBytes  int      `json:"view_bytes"`
	DurationMS int64    `json:"duration_ms"`
	Expected   []string `json:"expected"`
	Observed   []string `json:"observed"`
	Error      string   `json:"error,omitempty"` // the stable code of a failed run
	// Session is the scenario's session in the artifact store, for
	// veetbrowser replay.
	Session string `json:"session,omitempty"`
	// Detail explains a failure for a developer; it may quote the page and
	// is never part of the report.
	Detail string `json:"-"`
}

// Report is the suite's output.
type Report struct {
	Budget    int      `json:"budget"`
	Version   string   `json:"version"` // the tool version of the sessions
	Scenarios []Result `json:"scenarios"`
}

// Passed reports whether every scenario passed.
func (r *Report) Passed() bool {
	for _, s := range r.Scenarios {
		if s.Outcome != "pass" {
			return false
		}
	}
	return true
}

// CheckIDs refuses an id that names no scenario with invalid_argument, so
// a typo never passes as a run of nothing.
func CheckIDs(ids []string) error { return checkIDs(scenarios(), ids) }

// checkIDs checks ids against all, the scenarios Run already built: building
// them builds every page, large ones included.
func checkIDs(all []scenario, ids []string) error {
	var known []string
	for _, sc := range all {
		known = append(known, sc.id)
	}
	for _, id := range ids {
		if !slices.Contains(known, id) {
			return errcode.New(errcode.InvalidArgument, "no scenario %q; the scenarios are %s", id, strings.Join(known, ", "))
		}
	}
	return nil
}

// Run runs every scenario on rt with model views of budget bytes, or only
// the scenarios whose ids only names (CheckIDs).
func Run(ctx context.Context, rt *veetbrowser.Runtime, budget int, only ...string) (*Report, error) {
	site := newSite()
	all := scenarios()
	if len(only) > 0 {
		if err := checkIDs(all, only); err != nil {
			return nil, err
		}
		all = slices.DeleteFunc(all, func(sc scenario) bool { return !slices.Contains(only, sc.id) })
	}
	for _, sc := range all {
		for path, page := range sc.pages {
			site.pages["/"+sc.id+"/"+path] = page
		}
		for path, h := range sc.handlers {
			site.handlers["/"+sc.id+"/"+path] = h
		}
		for path, page := range sc.provider {
			site.providerPages["/"+sc.id+"/"+path] = page
		}
	}
	provider, stopProvider, err := loopback.Serve(http.HandlerFunc(site.serveProvider))
	if err != nil {
		return nil, err
	}
	defer stopProvider()
	// Reached as localhost, the provider is another origin than the
	// site's, so Chromium runs its frames out of process.
	site.provider = strings.Replace(provider, "127.0.0.1", "localhost", 1)
	base, stop, err := loopback.Serve(site)
	if err != nil {
		return nil, err
	}
	defer stop()
	report := &Report{Budget: budget, Version: tools.Newest().Name}
	for _, sc := range all {
		report.Scenarios = append(report.Scenarios, runOne(ctx, rt, budget, site, base, sc))
	}
	return report, nil
}

// approver is the user: it approves exactly the named controls, judging
// from the facts the runtime read from the page.
type approver []string

func (a approver) Approve(_ context.Context, f policy.Facts) (bool, error) {
	return slices.Contains(a, f.Name), nil
}

func runOne(ctx context.Context, rt *veetbrowser.Runtime, budget int, site *site, base string, sc scenario) Result {
	start := time.Now()
	res := Result{ID: sc.id, Outcome: "fail", Expected: sc.expected, Operations: map[string]int{}}
	if res.Expected == nil {
		res.Expected = []string{}
	}
	root, err := os.MkdirTemp("", "suite-upload")
	if err != nil {
		res.Error, res.Detail = string(errcode.Internal), err.Error()
		return res
	}
	defer os.RemoveAll(root)
	for name, content := range sc.upload {
		os.WriteFile(filepath.Join(root, name), []byte(content), 0o600)
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	s, err := rt.NewSession(sctx, veetbrowser.SessionOptions{Budget: budget, Approver: approver(sc.approve), UploadRoot: root,
		Grant:   policy.Grant{ReadValues: sc.readValues},
		Surface: "suite"})
	if err != nil {
		res.Error, res.Detail = string(errcode.Of(err)), err.Error()
		return res
	}
	res.Session = s.ID()
	defer s.Close(context.WithoutCancel(ctx))
	a := newAgent(s)
	page := base + "/" + sc.id + "/"
	// Every scenario starts on its page.
	runErr := a.navigate(sctx, page)
	if runErr == nil {
		runErr = sc.run(sctx, a, page)
	}
	res.Operations, res.Calls, res.ViewBytes = a.ops, a.calls, a.viewBytes
	res.Observed = settle(site, sc.id, len(sc.expected))
	res.DurationMS = time.Since(start).Milliseconds()
	if runErr != nil {
		res.Error, res.Detail = string(errcode.Of(runErr)), runErr.Error()
		return res
	}
	if slices.Equal(res.Observed, res.Expected) {
		res.Outcome = "pass"
	}
	return res
}

// settle waits for effects in flight: until the expected count arrives (or
// five seconds pass), then a little longer for any extra one.
func settle(site *site, id string, want int) []string {
	deadline := time.Now().Add(5 * time.Second)
	for len(site.observed(id)) < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	got := site.observed(id)
	if got == nil {
		got = []string{}
	}
	return got
}
