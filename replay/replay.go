// Package replay re-derives the model views of a recorded session from its
// records (docs/artifacts.md): each call's canonical observation is projected again
// with the options its tool version defines, and the result is compared
// with the digest of the view that was returned, byte for byte. Views can
// also be re-projected under another budget or tool version, to see their
// sizes and that each fits.
package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// Options re-project under other inputs than the recorded ones.
type Options struct {
	Budget  int    // 0: each view's recorded budget
	Version string // "": each view's recorded tool version
}

// Report is what a replay found.
type Report struct {
	SessionID string
	// AsRecorded: the views were re-derived with their recorded inputs and
	// compared with the recorded digests.
	AsRecorded bool
	Views      []View
	// Skipped counts calls that returned no view (errors, open intents).
	Skipped int
	// First is the first view that is not byte-identical to the recorded
	// one (AsRecorded only); nil when all are.
	First *Difference
	// AllFit: every view re-derived and fits its budget.
	AllFit bool
}

// View is one re-derived view.
type View struct {
	Seq     int64
	Tool    string
	Version string
	Budget  int
	Bytes   int    // 0 when it could not be derived
	Fits    bool   // Bytes ≤ Budget
	Code    string // the projection's error code, when it could not be derived
	Matches bool   // AsRecorded: byte-identical to the recorded view
}

// Difference is a re-derived view that differs from the recorded one.
type Difference struct {
	Seq                    int64
	Tool                   string
	RecordedBytes, Bytes   int
	RecordedSHA256, SHA256 string // hex
	Code                   string // the projection's error code, if it failed
}

// Identical reports whether the views were re-derived as recorded and every
// one is byte-identical.
func (r *Report) Identical() bool { return r.AsRecorded && r.First == nil }

// Session re-derives every view of the recorded session id.
func Session(ctx context.Context, st store.Store, id string, opts Options) (*Report, error) {
	var override *tools.Version
	if opts.Version != "" {
		v, err := tools.Lookup(opts.Version)
		if err != nil {
			return nil, err
		}
		override = &v
	}
	if opts.Budget != 0 && (opts.Budget < projection.MinBudget || opts.Budget > projection.MaxBudget) {
		return nil, errcode.New(errcode.InvalidArgument, "the budget must be between %d and %d bytes", projection.MinBudget, projection.MaxBudget)
	}
	rep := &Report{SessionID: id, AsRecorded: override == nil && opts.Budget == 0, AllFit: true}
	err := st.Calls(ctx, id, func(c store.Call) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.View == nil || c.Projection == nil || c.Observation == nil {
			rep.Skipped++
			return nil
		}
		v, err := tools.Lookup(c.Projection.Version)
		if err != nil {
			return errcode.Wrap(errcode.InvalidArgument, err, "call %d was projected under tool version %s, which this veetbrowser does not have", c.Seq, errcode.Quote(c.Projection.Version))
		}
		budget := c.Projection.Budget
		var args veetbrowser.ObserveOptions
		if c.Projection.ElementOffset != nil {
			args.ElementOffset = *c.Projection.ElementOffset
		}
		if c.Projection.TextOffset != nil {
			args.TextOffset = *c.Projection.TextOffset
		}
		if override != nil {
			v = *override
			if !v.Offsets {
				args = veetbrowser.ObserveOptions{}
			}
		}
		if opts.Budget != 0 {
			budget = opts.Budget
		}
		view, derr := derive(c, v, budget, args)
		out := View{Seq: c.Seq, Tool: c.Tool, Version: v.Name, Budget: budget, Bytes: len(view), Fits: derr == nil && len(view) <= budget}
		if derr != nil {
			out.Code = string(errcode.Of(derr))
		}
		if !out.Fits {
			rep.AllFit = false
		}
		if rep.AsRecorded {
			// A view that echoed the agent's draft is compared in the form
			// the stored observation (draft withheld) gives.
			want := c.View
			if c.Projection.Withheld != nil {
				want = c.Projection.Withheld
			}
			sum := sha256.Sum256(view)
			out.Matches = derr == nil && len(view) == want.Bytes && bytes.Equal(sum[:], want.SHA256)
			if !out.Matches && rep.First == nil {
				rep.First = &Difference{Seq: c.Seq, Tool: c.Tool, RecordedBytes: want.Bytes, Bytes: len(view),
					RecordedSHA256: hex.EncodeToString(want.SHA256), SHA256: hex.EncodeToString(sum[:]), Code: out.Code}
			}
		}
		rep.Views = append(rep.Views, out)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// derive projects the call's canonical observation as a session of version
// v with this budget would have.
func derive(c store.Call, v tools.Version, budget int, args veetbrowser.ObserveOptions) ([]byte, error) {
	var obs observation.Observation
	if err := json.Unmarshal(c.Observation, &obs); err != nil {
		return nil, errcode.Wrap(store.Unavailable, err, "call %d's observation cannot be read", c.Seq)
	}
	obs.Version = v.Name
	opts := veetbrowser.ViewOptions(v, budget, args)
	opts.Action = c.Projection.Action
	opts.Next = c.Projection.NextKey
	return projection.Project(&obs, opts)
}
