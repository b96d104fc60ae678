package projection

// Handoff is how a person's hold of the page ended (browser_handoff):
// HeldS, the whole seconds they had it; Ended, handed_back or timeout.
type Handoff struct {
	HeldS int    `json:"held_s"`
	Ended string `json:"ended"`
}

// How a handoff ends.
const (
	HandedBack     = "handed_back"
	HandoffTimeout = "timeout"
)
