package projection

// A view after several steps of one browser_act call (tool version 1.9.0,
// docs/actions.md): what each dispatched step did, one word each, and the
// step that stopped the sequence, with its code and message.

// Step outcomes, one word per dispatched step: the strongest effect wins
// (a navigation over a dialog over a plain dispatch).
const (
	StepDispatched          = "ok"        // the input was dispatched
	StepUnchanged           = "unchanged" // the state already held: nothing was dispatched
	StepNavigated           = "navigated" // a new document loaded
	StepNavigating          = "navigating"
	StepNavigationCancelled = "navigation_cancelled" // the page asked to keep unsaved changes and stayed
	StepDialogOpened        = "dialog_opened"
)

// StepWord is the one word that stands for an action's outcome o.
func StepWord(o Outcome) string {
	switch {
	case !o.Dispatched:
		return StepUnchanged
	case o.NavigationCancelled:
		return StepNavigationCancelled
	case o.NavigationDone:
		return StepNavigated
	case o.NavigationStarted:
		return StepNavigating
	case o.DialogOpened:
		return StepDialogOpened
	}
	return StepDispatched
}

// stopMessageCap bounds a stop's message in the view, in encoded bytes;
// the record keeps the whole message.
const stopMessageCap = 200

// Stopped is the step that ended a sequence before its end: Step counts
// from 1; Code and Message are that step's refusal, or document_changed
// for the step after one that loaded a new document. It and the steps
// after it were not dispatched.
type Stopped struct {
	Step             int    `json:"step"`
	Code             string `json:"code"`
	Message          string `json:"message"`
	MessageTruncated bool   `json:"message_truncated,omitempty"`
}

// stopped is s as the view shows it: the message within its cap.
func stopped(s *Stopped) *Stopped {
	if s == nil {
		return nil
	}
	out := *s
	var cut bool
	out.Message, cut = clip(s.Message, stopMessageCap)
	out.MessageTruncated = out.MessageTruncated || cut
	return &out
}
