package veetbrowser

import (
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestVersion140IsRefused: 1.4.0 belongs to a record this product does not
// have and is not registered: a session asking for it is refused, and its
// neighbours are not.
func TestVersion140IsRefused(t *testing.T) {
	t.Parallel()
	rt, err := New(shared.Get(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.NewSession(browsertest.Context(t, time.Minute), SessionOptions{Version: "1.4.0"})
	wantCode(t, err, errcode.InvalidArgument)
	for _, v := range []string{"1.3.0", "1.5.0"} {
		if s := session(t, SessionOptions{Version: v}); s.Version().Name != v {
			t.Fatalf("asked for %s, pinned to %s", v, s.Version().Name)
		}
	}
}
