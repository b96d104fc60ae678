package tab

import (
	"testing"
	"time"
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
