package collect

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// answersPage is a page with something for every call: landmarks, a form
// with a name, a password, a select and an editor holding a draft, text in
// several scripts, and a frame.
const answersPage = `<!doctype html><html lang="de"><title>Kasse — "Fuzz" 結帳</title>
<header><nav aria-label="Haupt"><a href="#a">Start</a> <a href="#b">Über uns</a> <a href="#c">مرحبا</a></nav></header>
<main><h1>Kasse 結帳 😀</h1><p>Der erste Absatz mit "Zitaten", einem Tab	und 👩‍👩‍👧.</p>
<form aria-label="Zahlung"><label>Name <input id="name" value="Ada"></label>
<label>Kennwort <input type="password" value="secret"></label>
<label>Sprache <select id="lang"><option>English</option><option>Deutsch</option><option disabled>Klingon</option><option>日本語</option></select></label>
<label>Notiz <textarea>note</textarea></label>
<div contenteditable="true" role="textbox" aria-label="Entwurf">mein Entwurf</div>
<label><input type="checkbox" checked> AGB</label>
<button id="pay">Jetzt bezahlen</button></form>
<iframe srcdoc="<button>Drinnen</button><p>Text im Rahmen</p>" width="300" height="120"></iframe>
<section aria-label="Fußnoten"><h2>Fußnoten</h2><p>Zweiter Absatz. शब्द 単語 کلمه.</p></section>
</main>`

// pageAnswers are the collector's answers to every call on answersPage,
// each with the decoder of its call: real examples that seed the
// decoders' fuzzing. Each is accepted by its own decoder.
func pageAnswers(tb testing.TB) [][]byte {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(shared.Get(tb).ctx)
	tb.Cleanup(cancel)
	ctx, stop := context.WithTimeout(ctx, time.Minute)
	tb.Cleanup(stop)
	if err := chromedp.Do(ctx, chromedp.Navigate(browsertest.Serve(tb, answersPage)), chromedp.Evaluate[chromedp.Void](Script)); err != nil {
		tb.Fatal(err)
	}
	var answers [][]byte
	answer := func(expr string, decode func([]byte) error) []byte {
		tb.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
		if err != nil {
			tb.Fatalf("%.60s: %v", expr, err)
		}
		if err := decode(raw); err != nil {
			tb.Fatalf("%.60s answered %.200s: %v", expr, raw, err)
		}
		answers = append(answers, raw)
		return raw
	}
	observe := func(p Params) *Result {
		p.MaxVisible, p.Window, p.MaxOffset = observation.MaxControls, observation.WindowSize, observation.MaxOffset
		var res *Result
		answer(Expression(p), func(raw []byte) (err error) { res, err = Decode(raw); return err })
		return res
	}
	// at is the control of that name in the revision's observation res.
	at := func(res *Result, revision, name string) Target {
		for i, c := range res.Controls {
			if c.Name == name {
				return Target{Revision: revision, Index: uint64(i), Doc: res.Doc}
			}
		}
		tb.Fatalf("no control %q in %+v", name, res.Controls)
		return Target{}
	}
	first := observe(Params{Revision: "r1"})
	var bound BindResult
	answer(BindDraft(at(first, "r1", "Entwurf")), func(raw []byte) (err error) { bound, err = DecodeBindDraft(raw); return err })
	observe(Params{Revision: "r2", Doc: first.Doc, Draft: &Draft{Value: "mein Entwurf"}, After: &Anchor{Revision: "r1", Index: 2}})
	observe(Params{Revision: "r3", Reading: true, Text: &From{Revision: "r1", Index: 1, Units: 4}})
	// The runtime names each frame's element before it observes in frames
	// mode.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void]("globalThis.__veetbrowser.nameFrame(document.querySelector('iframe'), 'k1')")); err != nil {
		tb.Fatal(err)
	}
	observe(Params{Revision: "r4", Reading: true, Frames: true})
	observe(Params{Revision: "r5", Doc: "another document"})
	observe(Params{Revision: "r6", After: &Anchor{Revision: "gone", Index: 0}})

	var control, text *FindResult
	answer(Find(FindRequest{Revision: "f1", Query: "bezahlen"}), func(raw []byte) (err error) { control, err = DecodeFind(raw); return err })
	answer(Find(FindRequest{Revision: "f2", Doc: first.Doc, Query: "absatz"}), func(raw []byte) (err error) { text, err = DecodeFind(raw); return err })
	answer(Find(FindRequest{Revision: "f3", Doc: first.Doc, Query: "absatz", From: &FindFrom{Revision: "f2", Controls: FindEnded, Text: 1}}),
		func(raw []byte) error { _, err := DecodeFind(raw); return err })
	answer(HoldsText(HoldsTextRequest{Text: "zweiter absatz"}), func(raw []byte) error { _, err := DecodeHoldsText(raw); return err })

	// The calls on controls act on the newest revision's: a page retains
	// the controls of its last two.
	last := observe(Params{Revision: "r7"})
	pay := GuardRequest{Target: at(last, "r7", "Jetzt bezahlen"), Pointer: true}
	answer(Inspect(pay), func(raw []byte) error { _, err := DecodeInspect(raw); return err })
	answer(Inspect(GuardRequest{Target: at(last, "r7", "Name"), Focus: true, Editable: true, Scroller: true}), func(raw []byte) error { _, err := DecodeInspect(raw); return err })
	answer(Inspect(GuardRequest{Target: Target{Revision: "gone", Doc: last.Doc}}), func(raw []byte) error { _, err := DecodeInspect(raw); return err })
	var point *GuardResult
	answer(Prepare(pay), func(raw []byte) (err error) { point, err = DecodePrepare(raw); return err })
	answer(Arm(ArmRequest{Target: pay.Target, Kind: GuardPointer, X: point.X, Y: point.Y}), func(raw []byte) error { _, err := DecodeArm(raw); return err })
	answer(Disarm(), func(raw []byte) error { _, err := DecodeDisarm(raw); return err })
	answer(Arm(ArmRequest{Target: pay.Target, Kind: GuardPointer, X: -1, Y: -1}), func(raw []byte) error { _, err := DecodeArm(raw); return err })
	for _, label := range []string{"Deutsch", "Klingon", "Elbisch"} {
		option := OptionRequest{Target: at(last, "r7", "Sprache"), Label: label}
		answer(SelectPlan(option), func(raw []byte) error { _, err := DecodeSelectPlan(raw); return err })
		answer(SelectedIs(option), func(raw []byte) error { _, err := DecodeSelectedIs(raw); return err })
	}
	answer(SelectPlan(OptionRequest{Target: at(last, "r7", "Name"), Label: "x"}), func(raw []byte) error { _, err := DecodeSelectPlan(raw); return err })

	answer(Shot(ShotRequest{Step: ShotView}), func(raw []byte) error { _, err := DecodeShot(raw); return err })
	answer(Shot(ShotRequest{Step: ShotBefore, Doc: first.Doc, Fields: true, Target: &pay.Target}), func(raw []byte) error { _, err := DecodeShot(raw); return err })
	answer(Shot(ShotRequest{Step: ShotAfter, Doc: first.Doc, Fields: true}), func(raw []byte) error { _, err := DecodeShot(raw); return err })
	answer(Shot(ShotRequest{Step: ShotBefore, Doc: "another document"}), func(raw []byte) error { _, err := DecodeShot(raw); return err })

	owner := OwnerRequest{Frame: "k1", Doc: first.Doc, X: 5, Y: 5}
	answer(RevealOwner(owner), func(raw []byte) error { _, err := DecodeOwner(raw); return err })
	answer(ThroughOwner(owner), func(raw []byte) error { _, err := DecodeOwner(raw); return err })
	answer(ThroughOwner(OwnerRequest{Frame: "unnamed", Doc: first.Doc}), func(raw []byte) error { _, err := DecodeOwner(raw); return err })
	if !bound.OK || len(control.Controls) == 0 || len(text.Matches) == 0 {
		tb.Fatalf("the page's answers miss what they are for: bound %+v, found %+v and %+v", bound, control, text)
	}
	return answers
}

// decoders are every decoder of an in-page answer, each with the checks
// an answer it accepts must pass: a refusal is one of its call's own, and
// anything else is within the bounds of the contract.
var decoders = map[string]func([]byte) error{
	"observe": func(raw []byte) error {
		r, err := Decode(raw)
		if err != nil {
			return nil
		}
		if r.Error != "" {
			return refusalOf(r.Error, observeRefusals)
		}
		return observeWithin(r)
	},
	"find": func(raw []byte) error {
		r, err := DecodeFind(raw)
		if err != nil {
			return nil
		}
		if r.Error != "" {
			return refusalOf(r.Error, findRefusals)
		}
		return findWithin(r)
	},
	"inspect": func(raw []byte) error { r, err := DecodeInspect(raw); return guardWithin(r, err, inspectRefusals) },
	"prepare": func(raw []byte) error { r, err := DecodePrepare(raw); return guardWithin(r, err, prepareRefusals) },
	"arm": func(raw []byte) error {
		r, err := DecodeArm(raw)
		if err != nil || r == "" {
			return nil
		}
		return refusalOf(r, armRefusals)
	},
	"disarm": func(raw []byte) error {
		r, err := DecodeDisarm(raw)
		if err == nil && (r.Hits < 0 || r.Blocked < 0 || r.Confirmed < 0 || r.Confirmed > r.Hits) {
			return fmt.Errorf("disarm %+v", r)
		}
		return nil
	},
	"selectPlan": func(raw []byte) error {
		p, err := DecodeSelectPlan(raw)
		if err != nil {
			return nil
		}
		if p.Error != "" {
			if p.Keys != nil || p.Type != "" {
				return fmt.Errorf("a refused plan with keys or a label: %+v", p)
			}
			return refusalOf(p.Error, selectRefusals)
		}
		if (p.Keys != nil) == (p.Type != "") || len(p.Keys) > observation.MaxSelectKeys+1 || observation.UTF16Len(p.Type) > observation.MaxTypeAheadUnits {
			return fmt.Errorf("plan %+v", p)
		}
		for _, k := range p.Keys {
			if !slices.Contains(selectKeys, k) {
				return fmt.Errorf("plan presses %q", k)
			}
		}
		return nil
	},
	"selectedIs": func(raw []byte) error { DecodeSelectedIs(raw); return nil },
	"holdsText":  func(raw []byte) error { DecodeHoldsText(raw); return nil },
	"bindDraft": func(raw []byte) error {
		if r, err := DecodeBindDraft(raw); err == nil && r.Same && !r.OK {
			return fmt.Errorf("bind %+v", r)
		}
		return nil
	},
	"owner": func(raw []byte) error {
		r, err := DecodeOwner(raw)
		if err != nil || r.Error == "" {
			return nil
		}
		return refusalOf(r.Error, ownerRefusals)
	},
	"shot": func(raw []byte) error {
		r, err := DecodeShot(raw)
		if err != nil {
			return nil
		}
		if r.Error != "" {
			return refusalOf(r.Error, shotRefusals)
		}
		return shotWithin(r)
	},
}

func refusalOf(r Refusal, allowed []Refusal) error {
	if !slices.Contains(allowed, r) {
		return fmt.Errorf("refusal %q, not one of %v", r, allowed)
	}
	return nil
}

func observeWithin(r *Result) error {
	cc, rc, tc := r.ControlCoverage, r.RegionCoverage, r.TextCoverage
	switch {
	case len(r.Controls) > observation.MaxControls || cc.Scanned < 0 || cc.Scanned > observation.WindowSize || cc.Acquired > observation.MaxAcquired:
		return fmt.Errorf("%d controls, coverage %+v", len(r.Controls), cc)
	case !slices.Contains([]string{ResumeStart, ResumeOrigin, ResumeStop}, cc.From) || !slices.Contains(draftVerdicts, r.Draft):
		return fmt.Errorf("resume point %q, draft %q", cc.From, r.Draft)
	case pageWithin(r.Page) != nil:
		return pageWithin(r.Page)
	case len(r.Regions) > observation.MaxRegions || rc.Version != observation.RegionCoverageV1 || rc.ScannedNodes < 0 ||
		rc.ScannedNodes > observation.RegionScanNodes || rc.Omitted < 0:
		return fmt.Errorf("%d regions, coverage %+v", len(r.Regions), rc)
	case tc.Version != observation.TextCoverageV1 || tc.ScannedNodes < 0 || tc.ScannedNodes > observation.TextNodes ||
		tc.InspectedUnits < 0 || tc.InspectedUnits > observation.TextUnits || tc.OmittedBytes < 0:
		return fmt.Errorf("text coverage %+v", tc)
	case observation.TextCost(tc.OmittedBytes, slices.Values(r.Text)) > observation.TextBytes:
		return fmt.Errorf("%d text parts of %d bytes with omissions", len(r.Text), observation.TextCost(tc.OmittedBytes, slices.Values(r.Text)))
	case tc.ByteBound != 0 && observation.TextCost(tc.OmittedBytes, slices.Values(r.Text)) > tc.ByteBound:
		return fmt.Errorf("text over its byte bound %d", tc.ByteBound)
	case len(r.HiddenFrames) > observation.WindowSize || len(r.TextFrames) > observation.TextNodes:
		return fmt.Errorf("%d hidden frames, %d frame marks", len(r.HiddenFrames), len(r.TextFrames))
	}
	for _, c := range r.Controls {
		if observation.UTF16Len(c.Name) > observation.MaxNameUnits {
			return fmt.Errorf("a control name of %d units", observation.UTF16Len(c.Name))
		}
	}
	for _, g := range r.Regions {
		if observation.UTF16Len(g.Summary) > observation.SummaryUnits || observation.UTF16Len(g.Name) > observation.MaxNameUnits {
			return fmt.Errorf("region %+v over its bounds", g)
		}
	}
	for _, m := range r.HiddenFrames {
		if m.Index < 0 || m.Index > len(r.Controls) {
			return fmt.Errorf("hidden frame %+v of %d controls", m, len(r.Controls))
		}
	}
	for i, m := range r.TextFrames {
		if m.Index < 0 || m.Index > len(r.Text) || i > 0 && m.Index < r.TextFrames[i-1].Index {
			return fmt.Errorf("frame mark %+v of %d text parts", m, len(r.Text))
		}
	}
	return nil
}

func pageWithin(p Page) error {
	if observation.UTF16Len(p.Title) > observation.MaxTitleUnits || observation.UTF16Len(p.URL) > observation.MaxURLUnits {
		return fmt.Errorf("title of %d units, URL of %d", observation.UTF16Len(p.Title), observation.UTF16Len(p.URL))
	}
	return nil
}

func findWithin(r *FindResult) error {
	c := r.Coverage
	switch {
	case r.Controls == nil || r.Matches == nil || len(r.Controls) > observation.FindMatches || len(r.Matches) > observation.FindMatches:
		return fmt.Errorf("%d controls, %d matches", len(r.Controls), len(r.Matches))
	case pageWithin(r.Page) != nil:
		return pageWithin(r.Page)
	case c.ScannedNodes < 0 || c.ScannedNodes > observation.ScanNodes || c.Candidates < 0 || c.Candidates > observation.MaxOffset ||
		c.InspectedUnits < 0 || c.InspectedUnits > observation.FindUnits:
		return fmt.Errorf("coverage %+v", c)
	}
	for _, ctl := range r.Controls {
		if ctl.Role == "" || ctl.Position < 0 || observation.UTF16Len(ctl.Name) > observation.MaxNameUnits {
			return fmt.Errorf("control %+v", ctl)
		}
	}
	for _, m := range r.Matches {
		if n := observation.UTF16Len(m.Snippet); n == 0 || n > observation.SnippetUnits {
			return fmt.Errorf("a snippet of %d units", n)
		}
	}
	return nil
}

func guardWithin(r *GuardResult, err error, allowed []Refusal) error {
	if err != nil {
		return nil
	}
	if r.Error != "" {
		if err := refusalOf(r.Error, allowed); err != nil {
			return err
		}
	} else if r.Facts == nil {
		return fmt.Errorf("no facts")
	}
	if (r.Height == nil) != (r.Top == nil) || r.Height != nil && (*r.Height < 0 || r.Facts == nil) {
		return fmt.Errorf("scroller %v %v", r.Height, r.Top)
	}
	if f := r.Facts; f != nil && (observation.UTF16Len(f.Name) > policy.MaxFactName || observation.UTF16Len(f.Form) > policy.MaxFactName) {
		return fmt.Errorf("facts %+v over their bound", f)
	}
	return nil
}

func shotWithin(r *ShotResult) error {
	finite := func(b Box) bool {
		for _, v := range []float64{b.L, b.T, b.R, b.B} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
		return b.R > b.L && b.B > b.T
	}
	if len(r.Boxes) > MaxMaskBoxes || len(r.Again) > MaxMaskBoxes || !(r.Width > 0 && r.Height > 0) ||
		!slices.Contains([]string{"", ShotLimitBoxes, ShotLimitNodes}, r.Limit) || r.Target != nil && !finite(*r.Target) {
		return fmt.Errorf("shot %+v", r)
	}
	for _, b := range r.Boxes {
		if !slices.Contains(maskKinds, b.Kind) || !finite(b.Box) {
			return fmt.Errorf("mask box %+v", b)
		}
	}
	for _, b := range r.Again {
		if b != nil && !finite(*b) {
			return fmt.Errorf("box %+v", *b)
		}
	}
	return nil
}

// decoderSeeds are answers no page gives: the wrong shapes, and values at
// and past the bounds.
var decoderSeeds = []string{
	``, `null`, `[]`, `"x"`, `1`, `true`, `{}`, `{} {}`, `{"error":"stale"}`, `{"error":"nonsense"}`, `{"error":1}`,
	`{"error":"anchor_unknown","controls":[{"role":"link","name":"x","name_truncated":false,"position":0,"states":{}}]}`,
	`{"ok":true}`, `{"ok":false,"same":true}`, `{"ok":true,"error":"covered"}`, `{"hits":1,"confirmed":2,"blocked":0}`,
	`{"keys":["ArrowDown","Home"]}`, `{"keys":[],"type":"x"}`, `{"type":"日本語"}`, `{"keys":["Enter"]}`, `{"holds":true}`, `{"holds":null}`,
	`{"doc":"d","width":800,"height":600,"scroll_x":0,"scroll_y":0,"scroll_height":600,"boxes":[{"kind":"password","l":1,"t":2,"r":3,"b":4}]}`,
	`{"doc":"d","width":1e400,"height":600,"scroll_x":0,"scroll_y":0,"scroll_height":600}`,
	`{"controls":[],"control_coverage":{"offset":0,"scanned":4097,"more":false,"limit":"","acquired":0,"from":""}}`,
	`{"text":["a"],"text_coverage":{"version":1,"scope":"` + observation.TextScope + `","omitted_bytes":-5}}`,
	`{"x":1e308,"y":-1e308,"facts":{"role":"button","name":"Pay"},"height":1,"top":null}`,
}

// FuzzDecoders feeds every decoder of an in-page answer what a hostile
// page could make the collector's world return, seeded with the real
// answers of every call on a page: a decoder never panics, and what it
// accepts is a refusal of its call's own or within the contract's bounds.
func FuzzDecoders(f *testing.F) {
	for _, raw := range pageAnswers(f) {
		f.Add(raw)
	}
	for _, raw := range decoderSeeds {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for name, check := range decoders {
			if err := check(raw); err != nil {
				t.Errorf("%s accepted %.300q: %v", name, raw, err)
			}
		}
	})
}
