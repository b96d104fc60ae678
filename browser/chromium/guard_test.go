package chromium

import (
	"testing"
	"time"
)

// The probe waits hangProbe on an idle machine and longer in proportion to
// the load, up to maxLoadFactor times: a hung renderer is still stopped
// within maxHangBound however loaded the machine is.
func TestProbeWaitFollowsTheLoad(t *testing.T) {
	for _, c := range []struct {
		factor float64
		want   time.Duration
	}{
		{0, hangProbe},
		{0.5, hangProbe},
		{1, hangProbe},
		{1.5, hangProbe * 3 / 2},
		{maxLoadFactor, maxLoadFactor * hangProbe},
		{maxLoadFactor + 1, maxLoadFactor * hangProbe},
	} {
		if got := probeWait(c.factor); got != c.want {
			t.Errorf("probeWait(%v) = %v, want %v", c.factor, got, c.want)
		}
	}
	if f := loadFactor(); f < 0 {
		t.Errorf("load factor %v", f)
	}
	if maxHangBound+navigationExcuse >= hostileCall {
		t.Errorf("a hung renderer is stopped within %v, after the %v a hostile call may take", maxHangBound+navigationExcuse, hostileCall)
	}
}
