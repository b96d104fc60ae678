package egress

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"testing"
)

// A browser-wide proxy's rules: with no session attached everything is
// refused; with sessions attached a request passes only if every one's
// check allows it, and a refusal is told to each; a session that detached
// is asked nothing more.
func TestSharedRules(t *testing.T) {
	var sh Shared
	r := sh.Rules()
	ctx := context.Background()
	shop, _ := url.Parse("https://shop.example/")
	tracker, _ := url.Parse("https://tracker.example/")
	local := netip.MustParseAddr("127.0.0.2")
	if r.Check(ctx, shop) == nil || r.Address(local) == nil {
		t.Fatal("allowed with no session attached")
	}
	r.Refused("https://shop.example") // told to nobody

	var toldA, toldB []string
	onlyShop := func(_ context.Context, u *url.URL) error {
		if u.Host != "shop.example" {
			return errors.New("refused")
		}
		return nil
	}
	detachA := sh.Attach(Rules{Check: onlyShop, Address: func(a netip.Addr) error {
		if a.IsLoopback() {
			return errors.New("refused address")
		}
		return nil
	}, Refused: func(o string) { toldA = append(toldA, o) }})
	detachB := sh.Attach(Rules{Refused: func(o string) { toldB = append(toldB, o) }}) // a session that checks nothing
	if err := r.Check(ctx, shop); err != nil {
		t.Errorf("refused what every session allows: %v", err)
	}
	if r.Check(ctx, tracker) == nil || r.Address(local) == nil {
		t.Error("allowed what one session refuses")
	}
	r.Refused("https://tracker.example")
	if len(toldA) != 1 || len(toldB) != 1 {
		t.Errorf("told %v and %v, want the refusal told to both", toldA, toldB)
	}
	detachA()
	detachA() // a second detach does nothing
	if err := r.Check(ctx, tracker); err != nil {
		t.Errorf("a detached session's check still refuses: %v", err)
	}
	if err := r.Address(local); err != nil {
		t.Errorf("a detached session's address rule still refuses: %v", err)
	}
	detachB()
	if r.Check(ctx, shop) == nil {
		t.Error("allowed once every session detached")
	}
}
