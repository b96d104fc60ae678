package projection

import (
	"encoding/json"

	"github.com/veetbot/veetbrowser/errcode"
)

// Download is one download as the model sees it (tool version 1.10.0,
// docs/downloads.md): an action's outcome leaves Origin out.
type Download struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
	State  string `json:"state"`
	Origin string `json:"origin,omitempty"`
}

// DownloadsView is browser_downloads' view: the session's downloads, oldest
// first, as many as the budget holds.
type DownloadsView struct {
	Version   string            `json:"version"`
	Downloads []Download        `json:"downloads"`
	Coverage  DownloadsCoverage `json:"coverage"`
}

// DownloadsCoverage counts the session's downloads (Total), those the view
// shows, those past the session's list bound (NotListed), and those past
// the budget (ViewCut).
type DownloadsCoverage struct {
	Total     int `json:"total"`
	Shown     int `json:"shown"`
	NotListed int `json:"not_listed,omitempty"`
	ViewCut   int `json:"view_cut,omitempty"`
}

// ProjectDownloads is the view of list (and more not listed) under version
// and budget (0: DefaultBudget); entries are added one by one while they
// fit, measured against a frame holding the largest counts.
func ProjectDownloads(list []Download, more int, version string, budget int) ([]byte, error) {
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget || budget > MaxBudget {
		return nil, errcode.New(errcode.InvalidArgument, "the budget must be between %d and %d bytes", MinBudget, MaxBudget)
	}
	total := len(list) + more
	v := DownloadsView{Version: version, Downloads: []Download{},
		Coverage: DownloadsCoverage{Total: total, Shown: total, NotListed: more, ViewCut: total}}
	left := budget - size(v)
	for i, d := range list {
		n := size(d)
		if i > 0 {
			n++ // the comma
		}
		if n > left {
			break
		}
		left -= n
		v.Downloads = append(v.Downloads, d)
	}
	v.Coverage.Shown = len(v.Downloads)
	v.Coverage.ViewCut = len(list) - len(v.Downloads)
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the downloads view cannot be encoded")
	}
	if len(raw) > budget {
		return nil, errcode.New(errcode.ObservationTooLarge, "the downloads view does not fit the %d-byte budget", budget)
	}
	return raw, nil
}
