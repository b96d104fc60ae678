package veetbrowser

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// smallPages are the small task pages the view-size benchmark measures:
// forms, dialogs and lists as sites write them, with a header and a footer.
var smallPages = map[string]string{
	"sign-in": `<!doctype html><title>Sign in · Acme</title><header><a href="/">Acme</a></header>
<main><h1>Sign in</h1><form aria-label="Sign in" onsubmit="event.preventDefault()">
<label>Email <input type="email" name="email" autocomplete="username"></label>
<label>Password <input type="password" name="password"></label>
<label><input type="checkbox" name="remember"> Keep me signed in</label>
<button>Sign in</button></form><p><a href="/reset">Forgot your password?</a></p></main>
<footer><a href="/terms">Terms</a> <a href="/privacy">Privacy</a></footer>`,
	"profile": `<!doctype html><title>Profile</title><form method="post" action="save" aria-label="Profile">
<label for="n">Name</label><input id="n" name="name">
<label>Email <input name="email" type="email"></label>
<input name="city" aria-label="City">
<span id="z1">Postal</span><span id="z2">code</span><input name="zip" aria-labelledby="z1 z2">
<input name="phone" placeholder="Phone">
<input name="company" title="Company">
<label>Plan <select name="plan"><option>Free</option><option>Pro</option></select></label>
<label><input type="checkbox" name="terms"> Accept the terms</label>
<button>Save profile</button>
</form>`,
	"shipping": `<!doctype html><title>Checkout — Shipping</title><nav aria-label="Steps"><ol><li>Cart</li><li aria-current="step">Shipping</li><li>Payment</li></ol></nav>
<main><h1>Shipping address</h1><form aria-label="Shipping address" onsubmit="event.preventDefault()">
<label>Full name <input name="name" required></label><label>Street <input name="street" required></label>
<label>City <input name="city" required></label><label>Postal code <input name="zip" required></label>
<label>Country <select name="country"><option>France</option><option>Germany</option><option>Italy</option></select></label>
<fieldset><legend>Delivery</legend><label><input type="radio" name="speed" checked> Standard (free)</label><label><input type="radio" name="speed"> Express (€9)</label></fieldset>
<button>Continue to payment</button></form></main>`,
	"confirm-dialog": `<!doctype html><title>Files</title><main><h1>Files</h1><ul><li>report.pdf <button>Delete report.pdf</button></li><li>notes.txt <button>Delete notes.txt</button></li></ul></main>
<div role="dialog" aria-modal="true" aria-labelledby="dt"><h2 id="dt">Delete report.pdf?</h2><p>This cannot be undone.</p><button>Cancel</button> <button>Delete</button></div>`,
	"cart-status": `<!doctype html><title>Cart</title><div role="status">3 items in cart</div><div role="alert">Stock is low</div>
<button onclick="confirm('Really remove the item?')">Remove item</button>`,
	"todo-list": `<!doctype html><title>Today</title><main><h1>Today</h1><ul>
<li><label><input type="checkbox" checked> Buy milk</label> <button aria-label="Delete Buy milk">×</button></li>
<li><label><input type="checkbox"> Call the bank</label> <button aria-label="Delete Call the bank">×</button></li>
<li><label><input type="checkbox"> Book the train</label> <button aria-label="Delete Book the train">×</button></li>
<li><label><input type="checkbox"> Water the plants</label> <button aria-label="Delete Water the plants">×</button></li>
</ul><form aria-label="New task" onsubmit="event.preventDefault()"><input aria-label="New task"> <button>Add</button></form></main>`,
}

// smallPageURLs serves the small pages and the demo site on loopback.
func smallPageURLs(tb testing.TB) map[string]string {
	urls := map[string]string{}
	for name, html := range smallPages {
		urls[name] = browsertest.Serve(tb, html)
	}
	url, stop, err := demo.Serve(&demo.Site{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	urls["demo"] = url
	return urls
}

func navigateView(tb testing.TB, ctx context.Context, s *Session, url string) *Result {
	tb.Helper()
	res, err := s.Call(ctx, tools.Navigate, json.RawMessage(fmt.Sprintf(`{"url":%q}`, url)))
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// BenchmarkViewBytes reports the bytes of the first view of each small
// page and the demo, in a 1.8.0 and a 1.9.0 session at 1 and 8 KiB, with
// the median over the pages and its ratio.
func BenchmarkViewBytes(b *testing.B) {
	urls := smallPageURLs(b)
	names := make([]string, 0, len(urls))
	for name := range urls {
		names = append(names, name)
	}
	slices.Sort(names)
	ctx := browsertest.Context(b, 5*time.Minute)
	for _, budget := range []int{1024, 8192} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
			for b.Loop() {
			}
			medians := map[string]float64{}
			for _, version := range []string{"1.8.0", "1.9.0"} {
				s := session(b, SessionOptions{Version: version, Budget: budget})
				var sizes []int
				for _, name := range names {
					n := len(navigateView(b, ctx, s, urls[name]).View)
					sizes = append(sizes, n)
					b.ReportMetric(float64(n), "B-"+version+"-"+name)
				}
				slices.Sort(sizes)
				medians[version] = float64(sizes[len(sizes)/2]+sizes[(len(sizes)-1)/2]) / 2
				b.ReportMetric(medians[version], "B-"+version+"-median")
			}
			b.ReportMetric(medians["1.9.0"]/medians["1.8.0"], "median-ratio")
		})
	}
}

// TestLeanViewsLoseNothing: for each small page and the demo, the 1.9.0
// view of an observation says everything its 1.8.0 view says. Expanded by
// the rules of docs/admission.md (the trust mark and the records' version
// and scope are the version's, the complete marker stands for records that
// say the page was read whole, a region's text names the parts of its
// summary), it is the 1.8.0 view, or on a page too large to show whole
// holds it as a prefix of each stream. Two things a whole view leaves to
// the canonical observation, which is recorded: the scan statistics and
// the regions' evidence refs.
func TestLeanViewsLoseNothing(t *testing.T) {
	t.Parallel()
	urls := smallPageURLs(t)
	ctx := browsertest.Context(t, 2*time.Minute)
	old, err := tools.Lookup("1.8.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{1024, 8192} {
		s := session(t, SessionOptions{Version: "1.9.0", Budget: budget})
		for name, url := range urls {
			res := navigateView(t, ctx, s, url)
			obs := *res.Observation
			obs.Version = old.Name
			opts := tools.ViewOptions(old, budget, 0, 0)
			opts.Next = obs.NextKey
			out, err := projection.Project(&obs, opts)
			if err != nil {
				t.Fatal(err)
			}
			var was, lean projection.View
			if err := json.Unmarshal(out, &was); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(res.View, &lean); err != nil {
				t.Fatal(err)
			}
			got := expandLean(t, lean, res.Observation, budget)
			was.Version, got.Version = "", ""
			wasWhole := was.Next == nil && was.ControlsOmitted == 0 && was.RegionsOmitted == 0 && was.TextOmitted == 0 && !was.TextTruncated
			if lean.Complete {
				if c := res.Observation; c.ControlCoverage.Scanned == 0 || c.RegionCoverage.ScannedNodes == 0 || c.TextCoverage.InspectedUnits == 0 {
					t.Errorf("%s: the canonical observation lost its scan statistics: %+v", name, c)
				}
				// What the marker leaves to the canonical observation.
				was.ControlCoverage.Scanned, was.RegionCoverage.ScannedNodes = 0, 0
				was.TextCoverage.ScannedNodes, was.TextCoverage.InspectedUnits = 0, 0
			}
			if !reflect.DeepEqual(got.ControlCoverage, was.ControlCoverage) || !reflect.DeepEqual(got.RegionCoverage, was.RegionCoverage) ||
				!reflect.DeepEqual(got.TextCoverage, was.TextCoverage) || got.CoverageVersion != was.CoverageVersion {
				t.Errorf("%s at %d: coverage %+v %+v %+v, 1.8.0's %+v %+v %+v", name, budget,
					got.ControlCoverage, got.RegionCoverage, got.TextCoverage, was.ControlCoverage, was.RegionCoverage, was.TextCoverage)
			}
			if !wasWhole {
				checkPrefix(t, name, was, got)
				continue
			}
			if !lean.Complete || len(res.View) >= len(out) {
				t.Errorf("%s at %d: 1.8.0's view of %d bytes is whole, the 1.9.0 view of %d bytes says complete %v", name, budget, len(out), len(res.View), lean.Complete)
			}
			if !reflect.DeepEqual(got, was) {
				t.Errorf("%s at %d: the whole view says\n%s\nthe 1.8.0 view\n%s", name, budget, res.View, out)
			}
		}
	}
}

// expandLean rewrites a 1.9.0 view as 1.8.0 says the same: the trust mark,
// the records (from the complete marker, less the scan statistics it
// leaves to the canonical observation), their version, scope and byte
// bound, the regions' summaries and evidence refs.
func expandLean(t *testing.T, v projection.View, obs *observation.Observation, budget int) projection.View {
	t.Helper()
	v.Trust = observation.Trust
	v.CoverageVersion = 1
	if v.Complete {
		// Read whole from the start: no bound hit, nothing omitted, no
		// cursor; the statistics are the canonical observation's.
		v.Complete = false
		v.ControlCoverage = &projection.Coverage{}
		v.RegionCoverage = &projection.RegionCoverage{}
		v.TextCoverage = &projection.TextCoverage{}
	}
	if c := v.RegionCoverage; c != nil && c.Version == 0 {
		c.Version, c.Scope = observation.RegionCoverageV1, observation.ReadingScope
	}
	if c := v.TextCoverage; c != nil {
		if c.Version == 0 {
			c.Version, c.Scope = observation.TextCoverageV1, observation.ReadingScope
		}
		if c.ByteBound == 0 {
			c.ByteBound = observation.ReadingWindow(budget)
		}
	}
	// The compact form (projection/compact.go): full refs, a link's role
	// and a leveled heading's kind.
	full, role := map[string]string{}, map[string]string{}
	for _, c := range obs.Controls {
		full[observation.CompactRef(c.Ref)], role[c.Ref] = c.Ref, c.Role
	}
	for _, g := range obs.Regions {
		full[observation.CompactRef(g.Ref)] = g.Ref
	}
	expand := func(ref string) string {
		if f, ok := full[ref]; ok {
			return f
		}
		return ref
	}
	for i := range v.Controls {
		v.Controls[i].Ref = expand(v.Controls[i].Ref)
		if v.Controls[i].Role == "" {
			v.Controls[i].Role = role[v.Controls[i].Ref]
		}
	}
	for i := range v.Skipped {
		v.Skipped[i].Ref = expand(v.Skipped[i].Ref)
	}
	for i := range v.RegionsSkipped {
		v.RegionsSkipped[i].Ref = expand(v.RegionsSkipped[i].Ref)
	}
	for i, g := range v.Regions {
		g.Ref = expand(g.Ref)
		if g.Kind == "" && g.Level > 0 {
			g.Kind = "heading"
		}
		if g.SummaryText != nil {
			g.Summary = strings.Join(v.Text[g.SummaryText[0]:g.SummaryText[1]+1], " ")
			g.SummaryText = nil
		}
		if g.Ref == "" {
			g.Ref = obs.Regions[i].Ref // a whole view's regions are the observation's, in order
		}
		v.Regions[i] = g
	}
	return v
}

// checkPrefix checks that each stream of the 1.8.0 view is a prefix of
// the 1.9.0 view's, the last text part of either possibly cut.
func checkPrefix(t *testing.T, name string, was, got projection.View) {
	t.Helper()
	if len(was.Controls) > len(got.Controls) || len(was.Controls) > 0 && !reflect.DeepEqual(was.Controls, got.Controls[:len(was.Controls)]) {
		t.Errorf("%s: the 1.8.0 view's controls are not a prefix of the 1.9.0 view's", name)
	}
	if len(was.Regions) > len(got.Regions) || len(was.Regions) > 0 && !reflect.DeepEqual(was.Regions, got.Regions[:len(was.Regions)]) {
		t.Errorf("%s: the 1.8.0 view's regions are not a prefix of the 1.9.0 view's", name)
	}
	for i, p := range was.Text {
		if i >= len(got.Text) || !strings.HasPrefix(got.Text[i], p) && !strings.HasPrefix(p, got.Text[i]) {
			t.Errorf("%s: text part %d of the 1.8.0 view is not in the 1.9.0 view", name, i)
			return
		}
	}
	if was.URL != got.URL || was.Title != got.Title || was.Revision != got.Revision || was.Trust != got.Trust {
		t.Errorf("%s: context %q %q %q, want %q %q %q", name, got.URL, got.Title, got.Revision, was.URL, was.Title, was.Revision)
	}
}
