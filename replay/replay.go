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
func Session(ctx context.Context, st store.Reader, id string, opts Options) (*Report, error) {
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
	var prev *observation.Observation // the previous view's, a delta's base
	err := st.Calls(ctx, id, func(c store.Call) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.View == nil || c.Projection == nil || c.Observation == nil {
			rep.Skipped++
			return nil
		}
		in, err := RecordedInputs(c.Projection)
		if err != nil {
			return errcode.Wrap(errcode.InvalidArgument, err, "call %d was projected under tool version %s, which this veetbrowser does not have", c.Seq, errcode.Quote(c.Projection.Version))
		}
		if override != nil {
			in.Version = *override
			if !in.Version.Offsets {
				in.ElementOffset, in.TextOffset = 0, 0
			}
		}
		if opts.Budget != 0 {
			in.Budget = opts.Budget
		}
		var view []byte
		var derr error
		if IsLog(c.Tool) {
			view, derr = DeriveLog(c, in)
		} else if obs := new(observation.Observation); json.Unmarshal(c.Observation, obs) != nil {
			derr = errcode.New(store.Unavailable, "call %d's observation cannot be read", c.Seq)
		} else {
			in.Base, prev = Base(c.Projection, prev), obs
			view, derr = Project(*obs, c.Projection, in)
		}
		out := View{Seq: c.Seq, Tool: c.Tool, Version: in.Version.Name, Budget: in.Budget, Bytes: len(view), Fits: derr == nil && len(view) <= in.Budget}
		if derr != nil {
			out.Code = string(errcode.Of(derr))
		}
		if !out.Fits {
			rep.AllFit = false
		}
		if rep.AsRecorded {
			same, want, sum := Compare(c, view)
			out.Matches = derr == nil && same
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

// Base is the observation a view recorded as a delta (tool version
// 1.9.0) is projected against: prev, the previous recorded view's, when it
// is the revision p names; else nil, and the view is re-derived in full.
func Base(p *store.Projection, prev *observation.Observation) *observation.Observation {
	if p.Since != "" && prev != nil && prev.Revision == p.Since {
		return prev
	}
	return nil
}

// DeriveLog re-derives the view of a browser_console or browser_network
// call (1.10.0, IsLog) from its recorded log read.
func DeriveLog(c store.Call, in Inputs) ([]byte, error) {
	var l observation.Log
	if err := json.Unmarshal(c.Observation, &l); err != nil {
		return nil, errcode.Wrap(store.Unavailable, err, "call %d's log cannot be read", c.Seq)
	}
	view, _, err := projection.ProjectLog(&l, in.Version.Name, in.Budget)
	return view, err
}

// Inputs are what a view is projected from besides the observation.
type Inputs struct {
	Version tools.Version
	Budget  int
	// ElementOffset and TextOffset (1.1.0) are where the element list and
	// the text start.
	ElementOffset int
	TextOffset    int
	// Base is the observation a delta view is projected against (Base).
	Base *observation.Observation
}

// RecordedInputs returns the inputs p records, those a call's view was
// projected with; an error when this veetbrowser lacks its tool version.
func RecordedInputs(p *store.Projection) (Inputs, error) {
	v, err := tools.Lookup(p.Version)
	if err != nil {
		return Inputs{}, err
	}
	in := Inputs{Version: v, Budget: p.Budget}
	if p.ElementOffset != nil {
		in.ElementOffset = *p.ElementOffset
	}
	if p.TextOffset != nil {
		in.TextOffset = *p.TextOffset
	}
	return in, nil
}

// Project projects obs, a call's canonical observation, as a session would
// have under in, with the action outcome and the next key p records. obs
// is taken by value: projecting stamps the version on it, and a caller's
// decoded observation must not carry that stamp into a later projection.
func Project(obs observation.Observation, p *store.Projection, in Inputs) ([]byte, error) {
	obs.Version = in.Version.Name
	opts := tools.ViewOptions(in.Version, in.Budget, in.ElementOffset, in.TextOffset)
	opts.Action, opts.Next = p.Action, p.NextKey
	if in.Base != nil && in.Version.RealPages {
		opts.Base, opts.Changes = in.Base, p.Changes
	}
	opts.Steps, opts.Stopped, opts.Handoff = p.Steps, p.Stopped, p.Handoff
	return projection.Project(&obs, opts)
}

// Compare reports whether view is byte-identical to the view recorded for
// call c, and returns that recorded view and view's SHA-256. A view that
// echoed the agent's draft is compared in the form the stored observation
// (draft withheld) gives.
func Compare(c store.Call, view []byte) (same bool, recorded *store.View, sum [sha256.Size]byte) {
	recorded = c.View
	if c.Projection.Withheld != nil {
		recorded = c.Projection.Withheld
	}
	sum = sha256.Sum256(view)
	return len(view) == recorded.Bytes && bytes.Equal(sum[:], recorded.SHA256), recorded, sum
}

// IsLog reports whether tool's record holds a log read rather than an
// observation.
func IsLog(tool string) bool { return tool == tools.Console || tool == tools.Network }
