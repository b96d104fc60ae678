package store

import (
	"encoding/json"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/projection"
)

// Unavailable is the code of every failure to read or write the artifact
// store: a call whose record cannot be written must not report success.
const Unavailable = errcode.ArtifactUnavailable

// Call statuses. A write's intent is recorded before its input is
// dispatched; a crash before Complete leaves the status at StatusIntent.
const (
	StatusIntent   = "intent"
	StatusComplete = "complete"
)

// OutcomeOK is the outcome of a call that returned a result; any other
// outcome is an error code.
const OutcomeOK = "ok"

// Bounds on what a caller may hand the store.
const (
	MaxIDBytes   = 128
	MaxNameBytes = 128     // tool, version, surface and outcome names
	MaxJSONBytes = 8 << 20 // one JSON document of a record
	MaxListLimit = 10000   // sessions in one listing
	DefaultLimit = 100     // sessions in a listing that sets no limit
	// MaxBlobBytes bounds one blob's data; screenshots are capped well
	// below it before they reach the store.
	MaxBlobBytes = 1 << 20
	// MaxBlobMetaBytes bounds a blob's metadata (what was masked, …).
	MaxBlobMetaBytes = 4 << 10
)

// Blob media types: the only ones a blob is stored as.
const (
	MediaJPEG = "image/jpeg"
	MediaPNG  = "image/png"
)

// Session is a recorded session: one page pinned to one tool version.
type Session struct {
	ID        string
	StartedAt time.Time // stored in UTC with microsecond precision
	Version   string    // the tool version the session is pinned to
	Budget    int       // the session's inline byte budget
	Grant     json.RawMessage
	Surface   string // cli, mcp, http, suite, library
}

// Call is one recorded tool call.
type Call struct {
	SessionID string
	Seq       int64 // assigned by the store: 1, 2, … per session
	Tool      string
	// Arguments as the caller sanitized them: typed text is replaced by
	// RedactText's {length, digest}; the store never sees it.
	Arguments json.RawMessage
	StartedAt time.Time
	Status    string // StatusIntent or StatusComplete
	Result
}

// Result is what Complete adds to an intent, and what Record writes with
// the call in one go.
type Result struct {
	Duration time.Duration
	Outcome  string // OutcomeOK or an error code; "" while an intent
	// Observation is the whole canonical observation; nil when the call
	// returned none.
	Observation json.RawMessage
	// Action is the action record (verified label facts, approval
	// decision, postconditions); nil for navigate and observe.
	Action json.RawMessage
	// View is the digest and size of the model view returned, and
	// Projection the inputs that re-derive it; both nil when no view was
	// returned.
	View       *View
	Projection *Projection
}

// View identifies the model view that was returned.
type View struct {
	SHA256 []byte `json:"sha256"` // 32 bytes
	Bytes  int    `json:"bytes"`
}

// Projection is what a model view was made from, besides the canonical
// observation: replay calls projection.Project with the options the tool
// version defines for these inputs.
type Projection struct {
	Version string `json:"version"`
	Budget  int    `json:"budget"`
	// 1.1.0 observe arguments that page the view.
	ElementOffset *int `json:"element_offset,omitempty"`
	TextOffset    *int `json:"text_offset,omitempty"`
	// Action: the postconditions of the act or upload that led to the
	// observation, as the view shows them.
	Action *projection.Outcome `json:"action,omitempty"`
	// Steps and Stopped: the outcomes of a browser_act call's steps and
	// the step that stopped them (tool version 1.9.0), as the view shows
	// them.
	Steps   []string            `json:"steps,omitempty"`
	Stopped *projection.Stopped `json:"stopped,omitempty"`
	// Handoff: how a person's hold of the page ended (browser_handoff,
	// tool version 1.10.0), as the view shows it.
	Handoff *projection.Handoff `json:"handoff,omitempty"`
	// Withheld: the view echoed the agent's own draft, which is typed text
	// and is withheld from the stored observation. This is the digest and
	// size of the view re-derived from the observation as stored, which
	// replay compares with instead of View.
	Withheld *View `json:"withheld,omitempty"`
	// NextKey mints the view's reading continuation (tool version 1.6.0),
	// so that replay re-derives the same bytes.
	NextKey *observation.NextKey `json:"next_key,omitempty"`
	// Changes and Since (tool version 1.9.0): the view could be a delta
	// (projection.ChangesAsked or ChangesLong) since the observation of
	// revision Since, the previous recorded view's, which replay projects
	// it against.
	Changes string `json:"changes,omitempty"`
	Since   string `json:"since,omitempty"`
}

// Lease is one tenant's exclusive hold on one of its profiles until
// Expires. At most one lease of a profile is live (Expires after now); a
// lease that expired is taken over by the next acquire.
type Lease struct {
	ID      string    // random and unguessable: the caller makes it
	Tenant  string    // whose profile it is
	Profile string    // the profile's name, unique within its tenant
	Holder  string    // the serving process that holds it
	Expires time.Time // stored in UTC with microsecond precision
}

// Blob is binary data tied to one recorded call of a session, such as a
// screenshot of the page revision the call saw.
type Blob struct {
	SessionID string
	Seq       int64  // the call's sequence number: the call is recorded first
	Kind      string // what it is, e.g. "screenshot"; 1 to MaxNameBytes bytes
	Revision  string // the observation revision it shows; may be empty
	MediaType string // MediaJPEG or MediaPNG, checked against the data's signature
	Data      []byte // 1 to MaxBlobBytes bytes
	// Meta is a JSON object of at most MaxBlobMetaBytes saying how the
	// data was made (what was masked, its scale, …); nil for none.
	Meta json.RawMessage
}

// BlobInfo is a blob in a listing: everything but its data.
type BlobInfo struct {
	ID        int64 // assigned by the store, unique in the store
	SessionID string
	Seq       int64
	Kind      string
	Revision  string
	MediaType string
	Bytes     int64 // the data's length
	Meta      json.RawMessage
}

// Size is the bytes a blob holds, counted for retention with the
// session's JSON.
func (b *Blob) Size() int64 { return int64(len(b.Data) + len(b.Meta)) }

// Summary is a session in a listing.
type Summary struct {
	Session
	Calls    int
	Outcomes map[string]int // by outcome; open intents count as "intent"
	Bytes    int64          // bytes of the session's records: their JSON and blobs (Blob.Size)
	LastAt   time.Time      // the session's last write
}

// ListOptions select a listing: newest sessions first.
type ListOptions struct {
	Limit int // 0: DefaultLimit
}

// Pruned counts what a Prune removed.
type Pruned struct {
	Sessions int
	Calls    int
	Blobs    int
	Bytes    int64
}

// Size is the JSON bytes a call's record holds, counted for retention.
func (c *Call) Size() int64 {
	return int64(len(c.Arguments)) + c.Result.Size()
}

// Size is the JSON bytes a result holds, counted for retention.
func (r *Result) Size() int64 {
	n := int64(len(r.Observation) + len(r.Action))
	if r.Projection != nil {
		p, _ := json.Marshal(r.Projection)
		n += int64(len(p))
	}
	return n
}
