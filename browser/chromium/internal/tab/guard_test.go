package tab

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
)

// The probe waits HangProbe on an idle machine and longer in proportion to
// the load, up to MaxLoadFactor times: a hung renderer is still stopped
// within MaxHangBound however loaded the machine is.
func TestProbeWaitFollowsTheLoad(t *testing.T) {
	tm := DefaultTimings()
	hangProbe, maxLoadFactor := tm.HangProbe, time.Duration(tm.MaxLoadFactor)
	for _, c := range []struct {
		factor float64
		want   time.Duration
	}{
		{0, hangProbe},
		{0.5, hangProbe},
		{1, hangProbe},
		{1.5, hangProbe * 3 / 2},
		{tm.MaxLoadFactor, maxLoadFactor * hangProbe},
		{tm.MaxLoadFactor + 1, maxLoadFactor * hangProbe},
	} {
		if got := tm.ProbeWait(c.factor); got != c.want {
			t.Errorf("ProbeWait(%v) = %v, want %v", c.factor, got, c.want)
		}
	}
	if f := MachineLoad(); f < 0 {
		t.Errorf("load factor %v", f)
	}
	if got, want := tm.MaxHangBound(), tm.HangAfter+maxLoadFactor*hangProbe; got != want {
		t.Errorf("MaxHangBound() = %v, want %v", got, want)
	}
	if tm.FrameStep != tm.HangBound() {
		t.Errorf("a frame's step is bounded by %v, the renderer guard's bound is %v", tm.FrameStep, tm.HangBound())
	}
}

// A pending navigation excuses a silent renderer only while its document
// request is with the network (for NavigationExcuse), and for one probe's
// wait after its turn came back to the renderer: before the request (the
// old document's beforeunload) and after the response (the commit) a
// silent renderer is hung.
func TestNavigationTurnExcusesTheNetworkOnly(t *testing.T) {
	tm := DefaultTimings()
	wait := tm.HangProbe
	tab := &Tab{timings: tm}
	const loader = cdp.LoaderID("L1")
	start := func(ago time.Duration) {
		tab.pending, tab.pendingAt = loader, time.Now().Add(-ago)
		tab.turn = navTurn{since: tab.pendingAt}
	}
	excused := func(what string, wait time.Duration, want bool) {
		t.Helper()
		if got := tab.excusedSilence(wait); got != want {
			t.Errorf("%s: excused %v, want %v", what, got, want)
		}
	}
	excused("no navigation", wait, false)
	start(time.Second)
	excused("a navigation that just started, before the probe", 0, false)
	excused("a navigation that started during the probe", wait, true)
	start(2 * wait)
	excused("a navigation held before its request for longer than a probe", wait, false)
	tab.noteTurnLocked(&network.EventRequestWillBeSent{RequestID: network.RequestID(loader)})
	excused("its request with the network", 0, true)
	tab.noteTurnLocked(&network.EventRequestWillBeSent{RequestID: "other"})
	excused("another request", 0, true)
	start(tm.NavigationExcuse + time.Second)
	tab.serversTurnLocked(loader) // the navigation guard's pause
	excused("a request with the network past NavigationExcuse", 0, false)
	start(time.Minute / 2)
	tab.serversTurnLocked(loader)
	tab.noteTurnLocked(&network.EventResponseReceived{RequestID: network.RequestID(loader)})
	excused("the response in, during the probe", wait, true)
	excused("the response in, before the probe", 0, false)
	tab.turn.since = time.Now().Add(-2 * wait)
	excused("no commit for longer than a probe after the response", wait, false)
}

// TestHeldNavigationsEndWithinTheExcuse: an action's navigation is stopped
// at SettleLoad and the page's own, behind a call, at NavigateBound, both
// before the guard's excuse for a navigation on the network's turn ends
// (settle.go): a server that holds its answer never costs the page.
func TestHeldNavigationsEndWithinTheExcuse(t *testing.T) {
	tm := DefaultTimings()
	if tm.SettleLoad >= tm.NavigationExcuse || tm.NavigateBound+tm.Cleanup >= tm.NavigationExcuse {
		t.Fatalf("SettleLoad %v, NavigateBound %v (+ Cleanup %v) past NavigationExcuse %v", tm.SettleLoad, tm.NavigateBound, tm.Cleanup, tm.NavigationExcuse)
	}
}
