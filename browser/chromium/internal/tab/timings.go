package tab

import (
	"context"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"
)

// Timings are every duration the page layer waits for: the tab's own
// (navigation, renderer guard, settling after input, frames) and the
// session's that go with them (tabs, dialogs, scrolls, waits). The
// provider holds one table and hands it to every tab; tests shorten it so
// that a hung renderer is stopped in seconds. DefaultTimings documents the
// values the runtime runs with.
type Timings struct {
	// Navigation (navigate.go). A navigation returns within about
	// NavigateBound even when the page never finishes loading, the page
	// then marked as still loading (a call on the page stops one whose
	// request has been with the network that long: settle.go's unhold);
	// once the document is parsed it waits LoadGrace for the load event. It waits for no redirect that its
	// loaded document did not announce (redirect.go): RedirectStart bounds
	// the start of one it did (a navigation the renderer asked for, or a
	// meta refresh, after its delay). A navigation answered ERR_ABORTED
	// waits DismissalWait for the runtime's dismissal of a beforeunload to
	// be recorded. A history step shows what it does within HistoryStart or
	// leaves the page as it is.
	NavigateBound, LoadGrace, RedirectStart, DismissalWait, HistoryStart time.Duration
	// NavigationDecision bounds the navigation guard's decision on one
	// paused document request, a host lookup included (navguard.go).
	NavigationDecision time.Duration

	// The renderer guard (guard.go): a step that has run HangAfter probes
	// the renderer, which must answer within HangProbe, longer on a loaded
	// machine in proportion to LoadFactor (runnable tasks per core), at
	// most MaxLoadFactor times (a nil LoadFactor counts as 1).
	// NavigationExcuse is how long a pending main-frame navigation
	// excuses a silent renderer; CrashWait bounds the wait for the crash a
	// hung renderer was sent.
	HangAfter, HangProbe time.Duration
	MaxLoadFactor        float64
	LoadFactor           func() float64
	NavigationExcuse     time.Duration
	CrashWait            time.Duration

	// Page steps (step.go): StepTimeout bounds a step whose caller set no
	// deadline; CollectorReady bounds the wait for the collector's world
	// of a new tab.
	StepTimeout, CollectorReady time.Duration
	// After input (settle.go): an action waits for no navigation, dialog
	// or page the page did not announce by the end of one round trip to
	// the renderer after its input; SettleWindow bounds that round trip on
	// a busy page (the page is then taken as settled). SettleLoad bounds
	// the wait for the document a navigation the action started; one
	// still waiting on its server then is stopped, and the page stays.
	SettleWindow, SettleLoad time.Duration
	// DialogAnswer bounds the runtime's own answer to a dialog (a
	// dismissed beforeunload); PopupClose the closing of a popup.
	DialogAnswer, PopupClose time.Duration

	// Frames (frames.go): attaching to an out-of-process frame and
	// installing its collector; the wait for a loading frame's world; one
	// collector call in a frame (the renderer guard watches the page's
	// renderer, not a frame's).
	FrameAttach, FrameWorldWait, FrameStep time.Duration

	// The session's: adopting or closing a tab (TabOpen), a dialog closing
	// after its answer (DialogClose), a scroll position settling
	// (ScrollSettle, read every ScrollPoll), a wait's check (WaitPoll), and
	// the cleanup of a session whose caller has gone (CloseWait).
	TabOpen, DialogClose, ScrollSettle, ScrollPoll, WaitPoll, CloseWait time.Duration

	// Cleanup bounds a call that must run after its step ended or was
	// interrupted (releasing handles, stopping a load): a hung or crashed
	// renderer never answers it, and it must not wait for one.
	Cleanup time.Duration
}

// DefaultTimings are the runtime's timings. The renderer guard's leave
// room for a loaded machine: a starved but healthy renderer answers the
// probe late, and a false alarm would lose the page.
func DefaultTimings() Timings {
	return Timings{
		NavigateBound:      20 * time.Second,
		LoadGrace:          3 * time.Second,
		RedirectStart:      2 * time.Second,
		DismissalWait:      time.Second,
		HistoryStart:       5 * time.Second,
		NavigationDecision: 5 * time.Second,

		HangAfter:        9 * time.Second,
		HangProbe:        5 * time.Second,
		MaxLoadFactor:    2,
		LoadFactor:       MachineLoad,
		NavigationExcuse: 30 * time.Second,
		CrashWait:        5 * time.Second,

		StepTimeout:    90 * time.Second,
		CollectorReady: 10 * time.Second,
		SettleWindow:   300 * time.Millisecond,
		SettleLoad:     15 * time.Second,
		DialogAnswer:   5 * time.Second,
		PopupClose:     5 * time.Second,

		FrameAttach:    10 * time.Second,
		FrameWorldWait: 2 * time.Second,
		FrameStep:      14 * time.Second, // HangAfter + HangProbe

		TabOpen:      10 * time.Second,
		DialogClose:  5 * time.Second,
		ScrollSettle: time.Second,
		ScrollPoll:   100 * time.Millisecond,
		WaitPoll:     120 * time.Millisecond,
		CloseWait:    5 * time.Second,

		Cleanup: 2 * time.Second,
	}
}

// CleanupContext is the context of a cleanup call after a step on ctx: it
// is not cancelled with ctx, and ends after Cleanup.
func (tm Timings) CleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), tm.Cleanup)
}

// HangBound is how long a step may leave the renderer silent on an idle
// machine before it is taken as hung.
func (tm Timings) HangBound() time.Duration { return tm.HangAfter + tm.HangProbe }

// MaxHangBound is how long a hung renderer may go unstopped however
// loaded the machine is.
func (tm Timings) MaxHangBound() time.Duration {
	return tm.HangAfter + time.Duration(tm.MaxLoadFactor*float64(tm.HangProbe))
}

// ProbeWait is how long the probe waits for an answer when the machine
// runs factor runnable tasks per core.
func (tm Timings) ProbeWait(factor float64) time.Duration {
	return time.Duration(float64(tm.HangProbe) * min(max(factor, 1), tm.MaxLoadFactor))
}

// MachineLoad is the machine's one-minute load average per core, or 1
// where the system does not say.
func MachineLoad() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	first, _, _ := strings.Cut(string(b), " ")
	load, err := strconv.ParseFloat(first, 64)
	if err != nil {
		return 1
	}
	return load / float64(goruntime.NumCPU())
}
