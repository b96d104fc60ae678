package projection

import "github.com/veetbot/veetbrowser/observation"

// Blocked in the view (browser tools ≥ 1.9.0, docs/navigation.md): how many
// requests the session's pages made since the last result were stopped
// before they left the browser, and to which origins. It is an essential:
// a page that does not work because its requests were blocked says so.
// The origins listed take at most a quarter of the budget, each clipped to
// blockedOriginCap bytes; the ones left out are counted with the others.

// Blocked is the observation's record as the model sees it.
type Blocked struct {
	Total         int             `json:"total"`
	Origins       []BlockedOrigin `json:"origins,omitempty"`
	OtherOrigins  int             `json:"other_origins,omitempty"`
	OtherRequests int             `json:"other_requests,omitempty"`
}

// BlockedOrigin is one listed origin of Blocked.
type BlockedOrigin struct {
	Origin    string `json:"origin"`
	Truncated bool   `json:"origin_truncated,omitempty"`
	Count     int    `json:"count"`
}

// blockedOriginCap bounds a listed origin, in encoded bytes.
const blockedOriginCap = 64

// setBlocked puts the blocked record of obs on v, listing origins while the
// record stays within a quarter of budget.
func setBlocked(v *View, obs *observation.Observation, on bool, budget int) {
	if !on || obs.Blocked == nil || obs.Blocked.Total == 0 {
		return
	}
	b := obs.Blocked
	rec := &Blocked{Total: b.Total, OtherOrigins: b.OtherOrigins, OtherRequests: b.OtherRequests}
	v.Blocked = rec
	for i, o := range b.Origins {
		origin, cut := clip(o.Origin, blockedOriginCap)
		rec.Origins = append(rec.Origins, BlockedOrigin{Origin: origin, Truncated: cut, Count: o.Count})
		if size(rec) <= budget/4 {
			continue
		}
		// This one and the rest are counted, not listed.
		rec.Origins = rec.Origins[:i]
		for _, left := range b.Origins[i:] {
			rec.OtherOrigins++
			rec.OtherRequests += left.Count
		}
		break
	}
}
