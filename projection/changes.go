package projection

import (
	"encoding/json"
	"slices"

	"github.com/veetbot/veetbrowser/observation"
)

// Bounds of a view's changes (browser tools ≥ 1.9.0, docs/changes.md):
// entries per list; the entries past a bound, or past the budget, are
// counted in the list's omission count.
const (
	ChangeControls = 32 // controls added, changed, and removed, each
	ChangeRegions  = 8  // region records new or changed
	ChangeText     = 16 // text parts added, and removed, each
)

// When a view may be a delta (Options.Changes).
const (
	// ChangesAsked (browser_observe {changes: true}): whenever a delta is
	// allowed and smaller than the full view.
	ChangesAsked = "asked"
	// ChangesLong (an action's view): as ChangesAsked, and only when the
	// full view would not hold the whole page (it would carry a next).
	ChangesLong = "long"
)

// Changes is what changed since the view of revision Since: controls by
// their node identity, regions and text parts by their content. Unchanged
// controls are not repeated; the refs earlier views gave them stay valid.
type Changes struct {
	Since     string `json:"since"`
	Unchanged int    `json:"unchanged"` // controls kept, with their refs
	// Added and Changed carry the refs of this revision.
	Added          []Control `json:"added,omitempty"`
	AddedOmitted   int       `json:"added_omitted,omitempty"`
	Changed        []Control `json:"changed,omitempty"`
	ChangedOmitted int       `json:"changed_omitted,omitempty"`
	Removed        []Gone    `json:"removed,omitempty"`
	RemovedOmitted int       `json:"removed_omitted,omitempty"`
	// Regions are the region records new or changed; RegionsRemoved counts
	// the records of Since no longer found.
	Regions            []Region `json:"regions,omitempty"`
	RegionsOmitted     int      `json:"regions_omitted,omitempty"`
	RegionsRemoved     int      `json:"regions_removed,omitempty"`
	TextAdded          []string `json:"text_added,omitempty"`
	TextAddedOmitted   int      `json:"text_added_omitted,omitempty"`
	TextRemoved        []string `json:"text_removed,omitempty"`
	TextRemovedOmitted int      `json:"text_removed_omitted,omitempty"`
}

// Gone is a control of the previous view no longer on the page.
type Gone struct {
	Role          string `json:"role"`
	Name          string `json:"name"`
	NameTruncated bool   `json:"name_truncated,omitempty"`
	Frame         int    `json:"frame,omitempty"`
}

// changesView is a delta view: View's essentials and context, and the
// changes instead of the streams, under the same JSON names, so that a
// delta decodes into a View too.
type changesView struct {
	Version        string   `json:"version"`
	Revision       string   `json:"revision"`
	Trust          string   `json:"trust"`
	Action         *Outcome `json:"action,omitempty"`
	Tabs           *Tabs    `json:"tabs,omitempty"`
	URL            string   `json:"url,omitempty"`
	URLTruncated   bool     `json:"url_truncated,omitempty"`
	Title          string   `json:"title,omitempty"`
	TitleTruncated bool     `json:"title_truncated,omitempty"`
	Loading        bool     `json:"loading,omitempty"`
	Changes        *Changes `json:"changes"`
}

// withChanges returns the delta view of obs since opts.Base when the rules
// of docs/changes.md allow one and it is smaller than full, the full view;
// else full.
func withChanges(obs *observation.Observation, opts Options, full []byte) []byte {
	if opts.Changes == ChangesLong {
		var cut struct {
			Next json.RawMessage `json:"next"`
		}
		if json.Unmarshal(full, &cut) != nil || cut.Next == nil {
			return full
		}
	}
	d := diff(opts.Base, obs, opts)
	if d == nil {
		return full
	}
	budget := opts.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	delta, ok := admitChanges(obs, opts, d, budget)
	if !ok || len(delta) >= len(full) {
		return full
	}
	return delta
}

// comparable reports whether a delta can stand for obs's view: both
// observations are first views (no continuation) of one document, with
// node identities, and neither holds a dialog or a find.
func comparable(base, obs *observation.Observation) bool {
	first := func(o *observation.Observation) bool {
		rc, tc := o.RegionCoverage, o.TextCoverage
		return o.Document != "" && o.Find == nil && o.Dialog == nil && o.ControlCoverage.Offset == 0 && !o.ControlCoverage.Ended &&
			(rc == nil || !rc.Resumed && !rc.Ended) && (tc == nil || !tc.Resumed && !tc.Ended)
	}
	return base != nil && first(base) && first(obs) && base.Document == obs.Document
}

type identity struct{ frame, key int }

// delta is the full lists of a diff, before admission.
type delta struct {
	unchanged        int
	added, changed   []Control
	removed          []Gone
	regions          []Region
	regionsRemoved   int
	textIn, textGone []string
}

// diff compares base and obs, or returns nil when no delta may stand for
// obs's view (comparable, and every control has a unique identity).
func diff(base, obs *observation.Observation, opts Options) *delta {
	if !comparable(base, obs) {
		return nil
	}
	shown := func(c observation.Control) Control {
		m := modelControl(c, opts.Compact)
		if opts.Frames {
			m.Frame = c.Frame
		}
		if opts.Values {
			m.Value, m.ValueTruncated = modelValue(c)
		}
		return m
	}
	before, ok := identities(base)
	if !ok {
		return nil
	}
	if _, ok := identities(obs); !ok {
		return nil
	}
	d := &delta{}
	seen := make([]bool, len(base.Controls))
	for _, c := range obs.Controls {
		i, had := before[identity{c.Frame, c.Key}]
		now := shown(c)
		if !had {
			d.added = append(d.added, now)
			continue
		}
		seen[i] = true
		was := shown(base.Controls[i])
		was.Ref = now.Ref
		if string(encode(was)) == string(encode(now)) {
			d.unchanged++
		} else {
			d.changed = append(d.changed, now)
		}
	}
	for i, c := range base.Controls {
		if !seen[i] {
			m := shown(c)
			d.removed = append(d.removed, Gone{Role: m.Role, Name: m.Name, NameTruncated: m.NameTruncated, Frame: m.Frame})
		}
	}
	if opts.Regions {
		region := func(g observation.Region) Region {
			r := modelRegion(g, opts.Compact)
			if opts.Frames {
				r.Frame = g.Frame
			}
			return r
		}
		key := func(r Region) string { r.Ref = ""; return string(encode(r)) }
		var was, now []Region
		for _, g := range base.Regions {
			was = append(was, region(g))
		}
		for _, g := range obs.Regions {
			now = append(now, region(g))
		}
		in, gone := multisetDiff(now, was, key)
		d.regions, d.regionsRemoved = in, len(gone)
	}
	// A page where most controls changed is shown whole: a delta of it
	// would be mostly omission counts.
	if 2*(len(d.added)+len(d.changed)+len(d.removed)) > len(obs.Controls) {
		return nil
	}
	was, _ := pageText(base)
	now, _ := pageText(obs)
	same := func(s string) string { return s }
	d.textIn, d.textGone = multisetDiff(now, was, same)
	return d
}

// identities maps each control's identity to its index; false when a
// control has none or shares one.
func identities(obs *observation.Observation) (map[identity]int, bool) {
	m := make(map[identity]int, len(obs.Controls))
	for i, c := range obs.Controls {
		id := identity{c.Frame, c.Key}
		if _, dup := m[id]; dup || c.Key <= 0 {
			return nil, false
		}
		m[id] = i
	}
	return m, true
}

// multisetDiff returns the entries of now not in was and of was not in now,
// each in its own order, counting repeated entries.
func multisetDiff[T any](now, was []T, key func(T) string) (in, gone []T) {
	count := map[string]int{}
	for _, w := range was {
		count[key(w)]++
	}
	for _, n := range now {
		if k := key(n); count[k] > 0 {
			count[k]--
		} else {
			in = append(in, n)
		}
	}
	left := map[string]int{}
	for _, n := range now {
		left[key(n)]++
	}
	for _, w := range was {
		if k := key(w); left[k] > 0 {
			left[k]--
		} else {
			gone = append(gone, w)
		}
	}
	return in, gone
}

// admitChanges builds the delta view within budget: the essentials, the
// context, and each list's entries in order while they fit, at most its
// bound, every entry left out counted; false when not even the essentials
// and the context fit.
func admitChanges(obs *observation.Observation, opts Options, d *delta, budget int) ([]byte, bool) {
	ctx := contextOf(View{}, obs)
	v := changesView{Version: obs.Version, Revision: obs.Revision, Trust: observation.Trust, Action: opts.Action,
		URL: ctx.URL, URLTruncated: ctx.URLTruncated, Title: ctx.Title, TitleTruncated: ctx.TitleTruncated, Loading: obs.Loading}
	var t View
	setTabs(&t, obs, opts.Tabs, budget)
	v.Tabs = t.Tabs
	// Every omission count is reserved at its largest before any entry.
	c := &Changes{Since: opts.Base.Revision, Unchanged: d.unchanged,
		AddedOmitted: len(d.added), ChangedOmitted: len(d.changed), RemovedOmitted: len(d.removed),
		RegionsOmitted: len(d.regions), RegionsRemoved: d.regionsRemoved,
		TextAddedOmitted: len(d.textIn), TextRemovedOmitted: len(d.textGone)}
	v.Changes = c
	if size(v) > budget {
		return nil, false
	}
	admit(&v, budget, d.added, ChangeControls, &c.Added, &c.AddedOmitted)
	admit(&v, budget, d.changed, ChangeControls, &c.Changed, &c.ChangedOmitted)
	admit(&v, budget, d.removed, ChangeControls, &c.Removed, &c.RemovedOmitted)
	admit(&v, budget, d.regions, ChangeRegions, &c.Regions, &c.RegionsOmitted)
	admit(&v, budget, d.textIn, ChangeText, &c.TextAdded, &c.TextAddedOmitted)
	admit(&v, budget, d.textGone, ChangeText, &c.TextRemoved, &c.TextRemovedOmitted)
	return encode(v), true
}

// admit appends entries to *list in order while the view fits budget, at
// most bound of them; *omitted, reserved at len(entries), ends as the
// count of those left out. An entry that does not fit ends its list.
func admit[T any](v *changesView, budget int, entries []T, bound int, list *[]T, omitted *int) {
	for _, e := range entries[:min(len(entries), bound)] {
		*list = append(*list, e)
		*omitted--
		if size(v) > budget {
			*list = slices.Delete(*list, len(*list)-1, len(*list))
			*omitted++
			return
		}
	}
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // views hold only strings, numbers and booleans
	}
	return b
}
