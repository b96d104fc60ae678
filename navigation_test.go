package veetbrowser

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
)

// The destination policy is checked in the browser on the hop itself:
// with private and loopback addresses denied (the hosted default), a
// loopback page is never requested. (Link-local and metadata addresses are
// tested without traffic in package policy.)
func TestDestinationPolicyStopsTheRequest(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	url := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	s := session(t, SessionOptions{Destinations: policy.Destinations{DenyPrivate: true}})
	ctx := browsertest.Context(t, time.Minute)
	_, err := s.Navigate(ctx, url)
	wantCode(t, err, errcode.ForeignOrigin)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the refused destination got %d requests", n)
	}
	// The same session with a grant: a URL outside it is refused before
	// anything loads, and so is a hop to it.
	g := session(t, SessionOptions{Grant: policy.Grant{Origins: []string{"http://127.0.0.1:1"}}})
	_, err = g.Navigate(ctx, url)
	wantCode(t, err, errcode.ForeignOrigin)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the foreign origin got %d requests", n)
	}
}
