package observation

import (
	"fmt"
	"testing"
)

// The tally lists MaxBlockedOrigins origins and counts the rest: at the
// bound every origin is listed, one past it the last is counted.
func TestBlockedTallyBound(t *testing.T) {
	for _, n := range []int{MaxBlockedOrigins, MaxBlockedOrigins + 1} {
		var b BlockedTally
		for i := range n {
			b.Add(fmt.Sprintf("http://127.0.0.2:%d", 1000+i))
			b.Add(fmt.Sprintf("http://127.0.0.2:%d", 1000+i))
		}
		rec := b.Take()
		listed := min(n, MaxBlockedOrigins)
		if rec.Total != 2*n || len(rec.Origins) != listed || rec.OtherOrigins != n-listed || rec.OtherRequests != 2*(n-listed) {
			t.Errorf("%d origins: %+v", n, rec)
		}
		for _, o := range rec.Origins {
			if o.Count != 2 {
				t.Errorf("%d origins: %+v", n, o)
			}
		}
		if err := Validate(&Observation{Blocked: rec}); err != nil {
			t.Errorf("%d origins: %v", n, err)
		}
		if b.Take() != nil {
			t.Errorf("the tally is not empty after Take")
		}
	}
	// A flood of origins costs a bounded tally and still counts them.
	var b BlockedTally
	for i := range 5000 {
		b.Add(fmt.Sprintf("http://h%d.test", i))
	}
	if len(b.others) > maxOtherOrigins {
		t.Errorf("the tally keeps %d other origins", len(b.others))
	}
	if rec := b.Take(); rec.OtherOrigins != 5000-MaxBlockedOrigins || rec.Total != 5000 {
		t.Errorf("flood: %+v", rec)
	}
	if err := Validate(&Observation{Blocked: &Blocked{Total: 17, Origins: make([]BlockedOrigin, MaxBlockedOrigins+1)}}); err == nil {
		t.Errorf("a record of 17 origins passed admission")
	}
}
