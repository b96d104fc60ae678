package veetbrowser

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// Recording (docs/artifacts.md): every call of a session is written to the runtime's
// artifact store before its result is returned. Calls that change a page
// (navigate, act, upload) are written ahead: an intent before anything is
// dispatched, completed after. A read (observe) is written whole once it
// has its result. A call whose record cannot be written fails with
// artifact_unavailable; one whose intent cannot be written dispatches
// nothing.
//
// What is recorded never holds typed text (it is redacted under the
// runtime's key, which is never stored), form values, the DOM, cookies or
// file contents: arguments are sanitized here, and canonical observations
// hold none of those by construction, except the echo of the agent's own
// draft and the field values a read_values grant shows, which are withheld
// (see withhold).

// recordTimeout bounds writing a call's result. The write does not end with
// the call's context: a call that was cancelled after its dispatch is still
// recorded.
const recordTimeout = 30 * time.Second

// recorder writes one session's records.
type recorder struct {
	store store.Recorder
	key   []byte // the runtime's redaction key
	id    string // the session's id in the store
}

// surfaceLibrary is the surface of a session opened by a Go program.
const surfaceLibrary = "library"

// recordSession writes the session's own record, before its first call.
func (s *Session) recordSession(ctx context.Context, surface string) error {
	if surface == "" {
		surface = surfaceLibrary
	}
	grant, err := json.Marshal(grantRecord{Origins: s.grant.Origins, Classes: s.grant.Classes, ReadValues: s.grant.ReadValues, Approve: s.grant.Approve})
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "the session's grant cannot be recorded")
	}
	err = s.rec.store.CreateSession(ctx, store.Session{ID: s.rec.id, StartedAt: time.Now(), Version: s.version.Name,
		Budget: s.budget, Grant: grant, Surface: surface})
	return unavailable(err, "the session could not be recorded; no call was made")
}

// grantRecord is a task grant as recorded.
type grantRecord struct {
	Origins []string `json:"origins,omitempty"`
	Classes []string `json:"classes,omitempty"`
	// ReadValues says the session's views showed field values
	// (policy.GrantReadValues); the stored observations withhold them.
	ReadValues bool `json:"read_values,omitempty"`
	// Approve: the consequential classes the grant pre-approved.
	Approve []string `json:"approve,omitempty"`
}

// callRecord is one call being recorded.
type callRecord struct {
	s     *Session
	call  store.Call
	seq   int64 // the intent's sequence number; 0 for a read
	ahead bool  // an intent was written: finish completes it
	judge *judgement
	shot  *browser.Screenshot // stored with the call once it is written
	// handoff: who held the page and for how long (browser_handoff);
	// never what they did
	handoff *handoffRecord
}

// intent writes the intent of a call that changes the page. An error means
// nothing may be dispatched.
func (s *Session) intent(ctx context.Context, tool string, args any) (*callRecord, error) {
	rec, err := s.newCall(tool, args)
	if err != nil {
		return nil, err
	}
	rec.seq, err = s.rec.store.Intent(ctx, rec.call)
	if err != nil {
		return nil, unavailable(err, "the call could not be recorded, so it was not made")
	}
	rec.ahead = true
	return rec, nil
}

// read starts the record of a call that only reads the page; it is written
// whole by finish.
func (s *Session) read(tool string, args any) *callRecord {
	rec, err := s.newCall(tool, args)
	if err != nil {
		// Observe arguments always encode; keep the call recordable anyway.
		rec = &callRecord{s: s, call: store.Call{SessionID: s.rec.id, Tool: tool, Arguments: json.RawMessage(`{}`), StartedAt: time.Now()}}
	}
	return rec
}

func (s *Session) newCall(tool string, args any) (*callRecord, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "the call's arguments cannot be recorded")
	}
	return &callRecord{s: s, call: store.Call{SessionID: s.rec.id, Tool: tool, Arguments: raw, StartedAt: time.Now()}}, nil
}

// judged keeps what an action's authorization judged.
func (c *callRecord) judged(j judgement, err error) {
	if err != nil {
		j.Approval, j.Refused = "", string(errcode.Of(err))
	}
	c.judge = &j
}

// finish records the call's outcome (and, with a result, its canonical
// observation, action record and view) and returns what the call returns:
// its own result and error, or artifact_unavailable when a call that
// succeeded could not be recorded. A call that failed keeps its own error
// even if its record failed too: it reports no success either way.
func (c *callRecord) finish(ctx context.Context, res *Result, callErr error) (*Result, error) {
	r := store.Result{Duration: time.Since(c.call.StartedAt), Outcome: store.OutcomeOK}
	if callErr != nil {
		r.Outcome = string(errcode.Of(callErr))
	}
	if err := c.fill(&r, res); err != nil {
		// The result cannot be recorded, so it is not returned either; the
		// call's record still completes, with that failure.
		r = store.Result{Duration: r.Duration, Outcome: string(errcode.Of(err))}
		if callErr == nil {
			res, callErr = nil, err
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	var err error
	seq := c.seq
	if c.ahead {
		err = c.s.rec.store.Complete(wctx, c.call.SessionID, c.seq, r)
	} else {
		c.call.Result = r
		seq, err = c.s.rec.store.Record(wctx, c.call)
	}
	if err == nil && c.shot != nil && callErr == nil {
		err = c.s.storeShot(wctx, seq, c.shot)
	}
	if callErr != nil {
		return nil, callErr
	}
	if err != nil {
		return nil, unavailable(err, "the call's record could not be written, so its result is withheld; the call itself may have taken effect")
	}
	return res, nil
}

// fill adds what a result holds to r.
func (c *callRecord) fill(r *store.Result, res *Result) error {
	if res != nil && res.Log != nil {
		return c.fillLog(r, res)
	}
	if res != nil && res.Downloads != nil {
		return c.fillDownloads(r, res)
	}
	var act *actionRecord
	if c.judge != nil || res != nil && res.Action != nil || c.handoff != nil {
		act = &actionRecord{Authorization: c.judge, Handoff: c.handoff}
	}
	if res != nil && res.Observation != nil {
		// (A screenshot's result has none: its image is stored as a blob,
		// and its summary view is derived from the blob's record.)
		obs, withheld := withhold(res.Observation)
		var err error
		if r.Observation, err = json.Marshal(obs); err != nil {
			return errcode.Wrap(errcode.Internal, err, "the observation cannot be recorded")
		}
		if !withheld {
			res.encoded = r.Observation
		}
		r.View = &store.View{SHA256: sha256Sum(res.View), Bytes: len(res.View)}
		p := res.projected
		r.Projection = &store.Projection{Version: c.s.version.Name, Budget: p.Budget, Action: p.Action, NextKey: p.Next,
			Steps: p.Steps, Stopped: p.Stopped, Handoff: p.Handoff}
		if p.Base != nil {
			// A delta's base is projected as stored too (docs/changes.md).
			var held bool
			p.Base, held = withhold(p.Base)
			withheld = withheld || held
			r.Projection.Changes, r.Projection.Since = p.Changes, p.Base.Revision
		}
		if p.Offsets {
			r.Projection.ElementOffset, r.Projection.TextOffset = &p.ElementOffset, &p.TextOffset
		}
		if withheld {
			// Replay re-derives this view from the stored observation, draft
			// and values withheld: what it compares with is that view's digest.
			view, err := projection.Project(obs, p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(view)
			r.Projection.Withheld = &store.View{SHA256: sum[:], Bytes: len(view)}
		}
	}
	if res != nil && res.Action != nil {
		// (A step of a browser_act call with steps has postconditions
		// and no observation of its own: the call's last record has it.)
		act.Postconditions = postconditions(res.Action)
	}
	if act != nil {
		raw, err := json.Marshal(act)
		if err != nil {
			return errcode.Wrap(errcode.Internal, err, "the action cannot be recorded")
		}
		r.Action = raw
	}
	return nil
}

func sha256Sum(b []byte) []byte {
	sum := sha256.Sum256(b)
	return sum[:]
}

// judgement is what an action's authorization judged: the verified label
// facts read live from the page, whether they needed an approval, how it
// was given, or the code it was refused with.
type judgement struct {
	Class          string       `json:"class"`
	Facts          policy.Facts `json:"facts"`
	ApprovalNeeded bool         `json:"approval_needed"`
	Approval       string       `json:"approval,omitempty"` // policy.SourceStored, SourceApprover, pre_approved:CLASSES, control_room
	Refused        string       `json:"refused,omitempty"`  // the error code
}

// actionRecord is the action record of an act or upload.
type actionRecord struct {
	Authorization  *judgement     `json:"authorization,omitempty"` // nil: refused before facts were read
	Postconditions *postcondition `json:"postconditions,omitempty"`
	Handoff        *handoffRecord `json:"handoff,omitempty"` // handoff.go
}

type postcondition struct {
	Dispatched          bool   `json:"dispatched"`
	NavigationStarted   bool   `json:"navigation_started"`
	NavigationDone      bool   `json:"navigation_done"`
	NavigationCancelled bool   `json:"navigation_cancelled"`
	DialogOpened        bool   `json:"dialog_opened"`
	URL                 string `json:"url,omitempty"` // userinfo removed
	// Download (1.10.0): the download the action started: its name, size,
	// digest and state, never its content.
	Download *browser.Download `json:"download,omitempty"`
}

func postconditions(a *browser.ActResult) *postcondition {
	return &postcondition{Dispatched: a.Dispatched, NavigationStarted: a.NavigationStarted, NavigationDone: a.NavigationDone,
		NavigationCancelled: a.NavigationCancelled, DialogOpened: a.DialogOpened, URL: observation.WithoutUserinfo(a.URL),
		Download: a.Download}
}

// withhold returns obs as it is stored: the echo of the agent's own draft
// is typed text, so its text part is replaced by a marker; so is each
// field value a read_values grant showed, since a field holds what the
// agent typed into it as much as what the page put there (records hold
// no form values). withheld reports that something was.
func withhold(obs *observation.Observation) (stored *observation.Observation, withheld bool) {
	copied := false
	own := func() {
		if !copied {
			cp := *obs
			cp.Text = append([]observation.TextPart(nil), obs.Text...)
			cp.Controls = append([]observation.Control(nil), obs.Controls...)
			obs, copied = &cp, true
		}
	}
	for i, p := range obs.Text {
		if p.Source == observation.TextSourceDraft {
			own()
			obs.Text[i].Text = draftWithheld
		}
	}
	for i, c := range obs.Controls {
		if c.Value != nil {
			own()
			v := valueWithheld
			obs.Controls[i].Value = &v
		}
	}
	return obs, copied
}

// draftWithheld stands in the stored observation for the agent's draft,
// valueWithheld for a field's value.
const (
	draftWithheld = "[draft withheld]"
	valueWithheld = "[value withheld]"
)

// Arguments as recorded.

// navigateArgs records the URL without its userinfo; text that does not
// parse as a URL is kept only as its redaction elsewhere, so here it is
// dropped.
func navigateArgs(rawURL string) any {
	return tools.NavigateArgs{URL: observation.WithoutUserinfo(rawURL)}
}

// actRecord is browser_act's arguments as recorded: typed text, dialog
// prompt text and the chosen option are redacted.
type actRecord struct {
	Kind   string          `json:"kind"`
	Ref    string          `json:"ref,omitempty"`
	Text   *store.Redacted `json:"text,omitempty"`
	Submit bool            `json:"submit,omitempty"`
	Key    string          `json:"key,omitempty"`
	Option *store.Redacted `json:"option,omitempty"`
	Accept bool            `json:"accept,omitempty"`
	// 1.9.0: a multiple-choice select's labels, redacted as option is.
	Options []*store.Redacted `json:"options,omitempty"`
	Mode    string            `json:"mode,omitempty"`
}

func (s *Session) actArgs(a browser.Action) actRecord {
	r := actRecord{Kind: string(a.Kind), Ref: a.Ref, Text: s.redact(a.Text), Submit: a.Submit, Key: a.Key,
		Option: s.redact(a.Option), Accept: a.Accept, Mode: string(a.Mode)}
	for _, o := range a.Options {
		r.Options = append(r.Options, s.redact(o))
	}
	return r
}

func (s *Session) redact(text string) *store.Redacted {
	if text == "" {
		return nil
	}
	r, err := store.RedactText(s.rec.key, text)
	if err != nil {
		// The runtime's key is always long enough; record the length alone.
		return &store.Redacted{Length: len(text)}
	}
	return &r
}

// uploadRecord is browser_upload's arguments as recorded: the files' count
// and base names (the page sees those too), never their directories or
// contents.
type uploadRecord struct {
	Ref   string   `json:"ref"`
	Files int      `json:"files"`
	Names []string `json:"names"`
}

func uploadArgs(ref string, paths []string) any {
	u := uploadRecord{Ref: ref, Files: len(paths), Names: make([]string, len(paths))}
	for i, p := range paths {
		u.Names[i] = filepath.Base(p)
	}
	return u
}

// unavailable makes a store failure artifact_unavailable with msg; a coded
// refusal (an invalid record) and an ended context keep what they are.
func unavailable(err error, msg string) error {
	if err == nil {
		return nil
	}
	if c := errcode.Of(err); c != errcode.Internal && c != errcode.ArtifactUnavailable {
		return err
	}
	return errcode.Wrap(errcode.ArtifactUnavailable, err, "%s", msg)
}
