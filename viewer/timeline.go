// Package viewer shows recorded sessions (docs/artifacts.md) as timelines:
// a read-only web page over the artifact store (Handler) and the same
// timeline as one self-contained HTML file (WriteFile).
//
// It shows only what the store holds, which is sanitized when it is
// recorded: typed text is a length and a keyed digest, observations carry
// no form values and no hidden text. Each model view is re-derived from its
// recorded observation and inputs exactly as replay does, and checked
// against the recorded digest, so the page shows the bytes the model saw
// (indented for reading).
package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"sort"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
)

// CallsPerPage bounds a served session page; later calls are on the next
// pages. The self-contained file holds every call.
const CallsPerPage = 500

// MaxSessionsListed bounds the index: the newest sessions only.
const MaxSessionsListed = 500

// maxDiffListed bounds each side of a control diff shown for one call.
const maxDiffListed = 50

// entry is one call of the timeline as the templates show it.
type entry struct {
	Seq      int64
	Tool     string
	Outcome  string // "ok", an error code, or "intent" for an open intent
	OK       bool
	Started  string
	Duration string
	Args     []argument
	URL      string
	Title    string
	View     *viewShown
	Coverage []string
	Action   *actionShown
	Diff     *diff
	Images   []imageShown
}

// argument is one recorded argument: its value as recorded, and for a
// reference the control or region it named in the previous observation.
type argument struct {
	Name, Value, Refers string
}

type viewShown struct {
	Pretty   string // the re-derived view, indented
	Bytes    int
	Budget   int
	Percent  int // Bytes of Budget, at most 100
	Version  string
	Matches  bool   // byte-identical to the recorded view
	Withheld bool   // the agent's draft echo is withheld from the record
	Problem  string // why the view could not be re-derived or differs
}

type actionShown struct {
	Class          string
	Facts          []argument
	ApprovalNeeded bool
	Approval       string // stored, approver, or "" (none needed or refused)
	Refused        string
	Postconditions []string
	Handoff        string // who held the page (browser_handoff), how long, how it ended
}

type diff struct {
	First          bool // no earlier observation in the session
	Since          int64
	Added, Removed []string
	MoreAdded      int
	MoreRemoved    int
}

type imageShown struct {
	Src      template.URL // a URL path on the server, a data: URI in the file
	Revision string
}

// timeline reads the calls of session id in order and hands emit those
// from index from (0-based) on, at most limit of them (0: all). more says
// that calls follow the last one emitted. Every call before from is still
// read: the diff and the references of the first call shown need the
// observations before it.
func timeline(ctx context.Context, st store.Reader, id string, from, limit int, imgs map[int64][]imageShown, emit func(*entry) error) (more bool, err error) {
	var prev, older *observation.Observation
	var prevSeq int64
	i := 0
	errStop := errors.New("page full")
	err = st.Calls(ctx, id, func(c store.Call) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if limit > 0 && i >= from+limit {
			more = true
			return errStop
		}
		var obs *observation.Observation
		if c.Observation != nil && !replay.IsLog(c.Tool) {
			obs = new(observation.Observation)
			if err := json.Unmarshal(c.Observation, obs); err != nil {
				return errcode.Wrap(store.Unavailable, err, "call %d's observation cannot be read", c.Seq)
			}
		}
		if i >= from {
			e := newEntry(c, obs, prev, older, prevSeq)
			e.Images = imgs[c.Seq]
			if err := emit(e); err != nil {
				return err
			}
		}
		i++
		if obs != nil {
			older, prev, prevSeq = prev, obs, c.Seq
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return more, err
}

func newEntry(c store.Call, obs, prev, older *observation.Observation, prevSeq int64) *entry {
	e := &entry{Seq: c.Seq, Tool: c.Tool, Outcome: c.Outcome, OK: c.Outcome == store.OutcomeOK,
		Started: c.StartedAt.UTC().Format("2006-01-02 15:04:05.000 UTC")}
	if c.Status == store.StatusIntent || e.Outcome == "" {
		e.Outcome = "intent"
		e.Duration = "no outcome recorded"
	} else {
		e.Duration = c.Duration.Round(time.Microsecond).String()
	}
	e.Args = arguments(c.Arguments, prev, older)
	if obs != nil {
		e.URL, e.Title = obs.URL, obs.Title
		e.View = derive(c, obs, prev)
		e.Coverage = coverage(obs)
		e.Diff = controlDiff(obs, prev, prevSeq)
	} else if replay.IsLog(c.Tool) {
		e.View = derive(c, nil, nil) // a console or network read: its view alone
	}
	if c.Action != nil {
		e.Action = action(c.Action)
	}
	return e
}

// arguments lists the recorded arguments, each value as compact JSON. A
// redacted text ({length, digest}) is shown by its length. A string that is
// the reference of a control or region of the previous observation (or
// the one before: a session keeps two revisions) is shown with what it
// named.
func arguments(raw []byte, prev, older *observation.Observation) []argument {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return []argument{{Name: "(arguments)", Value: string(raw)}}
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]argument, 0, len(names))
	for _, k := range names {
		a := argument{Name: k, Value: compact(m[k])}
		var red store.Redacted
		if json.Unmarshal(m[k], &red) == nil && strings.HasPrefix(red.Digest, "hmac-sha256:") {
			a.Value = fmt.Sprintf("redacted (%d bytes)", red.Length)
		}
		var s string
		if json.Unmarshal(m[k], &s) == nil && s != "" {
			if a.Refers = refers(prev, s); a.Refers == "" {
				a.Refers = refers(older, s)
			}
		}
		out = append(out, a)
	}
	return out
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// refers names what ref refers to in obs: a control by role and name, a
// region by kind and name or summary.
func refers(obs *observation.Observation, ref string) string {
	if obs == nil {
		return ""
	}
	// 1.9.0 views write references compact; an action may give either.
	for _, c := range obs.Controls {
		if c.Ref == ref || observation.CompactRef(c.Ref) == ref {
			return controlLabel(c)
		}
	}
	for _, r := range obs.Regions {
		if r.Ref == ref || observation.CompactRef(r.Ref) == ref {
			name := r.Name
			if name == "" {
				name = r.Summary
			}
			return fmt.Sprintf("%s %q", r.Kind, name)
		}
	}
	return ""
}

func controlLabel(c observation.Control) string {
	return fmt.Sprintf("%s %q", c.Role, c.Name)
}

// derive re-projects the recorded observation with the recorded inputs,
// as replay does, and checks the bytes against the recorded digest.
func derive(c store.Call, obs, prev *observation.Observation) *viewShown {
	if c.View == nil || c.Projection == nil {
		return nil
	}
	p := c.Projection
	v := &viewShown{Budget: p.Budget, Version: p.Version, Withheld: p.Withheld != nil}
	in, err := replay.RecordedInputs(p)
	if err != nil {
		v.Problem = "recorded under tool version " + p.Version + ", which this veetbrowser does not have"
		return v
	}
	var view []byte
	if replay.IsLog(c.Tool) {
		view, err = replay.DeriveLog(c, in)
	} else {
		in.Base = replay.Base(p, prev)
		view, err = replay.Project(*obs, p, in)
	}
	if err != nil {
		v.Problem = "the view could not be re-derived: " + string(errcode.Of(err))
		return v
	}
	var want *store.View
	v.Matches, want, _ = replay.Compare(c, view)
	if !v.Matches {
		v.Problem = fmt.Sprintf("differs from the recorded view (%d bytes recorded, %d re-derived)", want.Bytes, len(view))
	}
	v.Bytes = len(view)
	if v.Budget > 0 {
		v.Percent = min(100, v.Bytes*100/v.Budget)
	}
	var b bytes.Buffer
	if json.Indent(&b, view, "", "  ") == nil {
		v.Pretty = b.String()
	} else {
		v.Pretty = string(view)
	}
	return v
}

// coverage summarizes what each stream of the observation covered.
func coverage(o *observation.Observation) []string {
	cc := o.ControlCoverage
	ctl := fmt.Sprintf("controls: %d kept, %d candidates scanned from offset %d", len(o.Controls), cc.Scanned, cc.Offset)
	switch {
	case cc.Ended:
		ctl += ", not scanned (an earlier view showed the last control)"
	case cc.ScanLimitReached:
		ctl += ", stopped at the " + cc.Limit + " limit (more may remain)"
	default:
		ctl += ", complete"
	}
	out := []string{ctl}
	if rc := o.RegionCoverage; rc != nil {
		s := fmt.Sprintf("regions: %d kept (%s), %d nodes scanned", len(o.Regions), rc.Scope, rc.ScannedNodes)
		if rc.NodeLimitReached {
			s += ", node limit reached"
		}
		if rc.Omitted > 0 {
			s += fmt.Sprintf(", %d omitted", rc.Omitted)
		}
		out = append(out, s)
	}
	if tc := o.TextCoverage; tc != nil {
		s := fmt.Sprintf("text: %d parts (%s), %d nodes scanned, %d units inspected", len(o.Text), tc.Scope, tc.ScannedNodes, tc.InspectedUnits)
		for _, l := range []struct {
			hit  bool
			name string
		}{{tc.NodeLimitReached, "node"}, {tc.TextLimitReached, "text"}, {tc.ByteLimitReached, "byte"}} {
			if l.hit {
				s += ", " + l.name + " limit reached"
			}
		}
		if tc.OmittedBytes > 0 {
			s += fmt.Sprintf(", %d bytes omitted", tc.OmittedBytes)
		}
		out = append(out, s)
	}
	return out
}

// actionRecord is the action record as record.go writes it.
type actionRecord struct {
	Authorization *struct {
		Class string `json:"class"`
		Facts struct {
			Origin  string `json:"origin"`
			Role    string `json:"role"`
			Name    string `json:"name"`
			NameCut bool   `json:"name_cut"`
			Form    string `json:"form"`
			Submit  bool   `json:"submit"`
		} `json:"facts"`
		ApprovalNeeded bool   `json:"approval_needed"`
		Approval       string `json:"approval"`
		Refused        string `json:"refused"`
	} `json:"authorization"`
	Postconditions *struct {
		Dispatched          bool   `json:"dispatched"`
		NavigationStarted   bool   `json:"navigation_started"`
		NavigationDone      bool   `json:"navigation_done"`
		NavigationCancelled bool   `json:"navigation_cancelled"`
		DialogOpened        bool   `json:"dialog_opened"`
		URL                 string `json:"url"`
	} `json:"postconditions"`
	Handoff *struct {
		By     string `json:"by"`
		HeldMS int64  `json:"held_ms"`
		Ended  string `json:"ended"`
		Input  string `json:"input"`
	} `json:"handoff"`
}

func action(raw []byte) *actionShown {
	var r actionRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return &actionShown{Refused: "(the action record cannot be read)"}
	}
	a := &actionShown{}
	if z := r.Authorization; z != nil {
		a.Class, a.ApprovalNeeded, a.Approval, a.Refused = z.Class, z.ApprovalNeeded, z.Approval, z.Refused
		f := z.Facts
		name := f.Name
		if f.NameCut {
			name += " (cut)"
		}
		a.Facts = []argument{{Name: "origin", Value: f.Origin}, {Name: "role", Value: f.Role}, {Name: "name", Value: name}}
		if f.Form != "" {
			a.Facts = append(a.Facts, argument{Name: "form", Value: f.Form})
		}
		if f.Submit {
			a.Facts = append(a.Facts, argument{Name: "submit", Value: "yes"})
		}
	}
	if h := r.Handoff; h != nil {
		a.Handoff = fmt.Sprintf("held by a person (%s) for %.1f s, %s; %s, not recorded", h.By, float64(h.HeldMS)/1000, h.Ended, h.Input)
	}
	if p := r.Postconditions; p != nil {
		for _, c := range []struct {
			on   bool
			name string
		}{{p.Dispatched, "dispatched"}, {p.NavigationStarted, "navigation started"}, {p.NavigationDone, "navigation done"},
			{p.NavigationCancelled, "navigation cancelled"}, {p.DialogOpened, "dialog opened"}} {
			if c.on {
				a.Postconditions = append(a.Postconditions, c.name)
			}
		}
		if !p.Dispatched {
			a.Postconditions = append(a.Postconditions, "not dispatched")
		}
		if p.URL != "" {
			a.Postconditions = append(a.Postconditions, "at "+p.URL)
		}
	}
	return a
}

// controlDiff compares the controls of obs with those of the previous
// observation by role and name, counting repeats.
func controlDiff(obs, prev *observation.Observation, prevSeq int64) *diff {
	if prev == nil {
		return &diff{First: true}
	}
	count := map[string]int{}
	for _, c := range prev.Controls {
		count[controlLabel(c)]++
	}
	d := &diff{Since: prevSeq}
	for _, c := range obs.Controls {
		l := controlLabel(c)
		if count[l] > 0 {
			count[l]--
			continue
		}
		if len(d.Added) < maxDiffListed {
			d.Added = append(d.Added, l)
		} else {
			d.MoreAdded++
		}
	}
	for _, c := range prev.Controls { // what is left was removed, in page order
		l := controlLabel(c)
		if count[l] == 0 {
			continue
		}
		count[l]--
		if len(d.Removed) < maxDiffListed {
			d.Removed = append(d.Removed, l)
		} else {
			d.MoreRemoved++
		}
	}
	return d
}
