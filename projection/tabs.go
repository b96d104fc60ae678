package projection

import "github.com/veetbot/veetbrowser/observation"

// Tabs in the view (browser tools ≥ 1.8.0, docs/interactions.md): the
// active tab's id, the number of tabs and what opened or was closed since
// the last result are essentials of every view of a session with more than
// one tab, or where something happened to one; a lone tab with nothing to
// report adds nothing (browser_tabs always lists). The list of browser_tabs
// list takes at most half the budget over the header, tab by tab, in the
// order the tabs opened; list_omitted counts the tabs left out.

// Tabs is the session's tabs as the model sees them: the observation's
// summary, and the tabs listed within the budget.
type Tabs struct {
	observation.TabsSummary
	List        []Tab `json:"list,omitempty"`
	ListOmitted int   `json:"list_omitted,omitempty"`
}

// Tab is one tab of a list.
type Tab struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	TitleTruncated bool   `json:"title_truncated,omitempty"`
	URL            string `json:"url"`
	URLTruncated   bool   `json:"url_truncated,omitempty"`
	Active         bool   `json:"active,omitempty"`
}

// Display caps of a listed tab, in encoded bytes: eight tabs stay short.
const (
	tabTitleCap = 80
	tabURLCap   = 120
)

// setTabs puts the tabs record of obs on v, listing tabs while the view
// stays within half of budget.
func setTabs(v *View, obs *observation.Observation, on bool, budget int) {
	if !on || obs.Tabs == nil {
		return
	}
	t := obs.Tabs
	if t.Count <= 1 && len(t.Opened) == 0 && t.Closed == 0 && t.Refused == 0 && t.List == nil {
		return
	}
	v.Tabs = &Tabs{TabsSummary: t.TabsSummary}
	if t.List == nil {
		return
	}
	v.Tabs.ListOmitted = len(t.List) // reserved while measuring
	for i, tab := range t.List {
		title, tcut := clip(tab.Title, tabTitleCap)
		u, ucut := clip(tab.URL, tabURLCap)
		v.Tabs.List = append(v.Tabs.List, Tab{ID: tab.ID, Title: title, TitleTruncated: tcut || tab.TitleTruncated,
			URL: u, URLTruncated: ucut || tab.URLTruncated, Active: tab.Active})
		if size(v) > budget/2 {
			v.Tabs.List = v.Tabs.List[:i]
			break
		}
	}
	v.Tabs.ListOmitted = len(t.List) - len(v.Tabs.List)
}
