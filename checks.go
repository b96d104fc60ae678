package veetbrowser

import (
	"context"
	"net/url"
	"strings"
	"sync"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
)

// navigationCheck is what every top-level navigation hop of a session must
// pass, whoever started it: the grant's class and origins, then the
// destination policy on the addresses the host resolves to.
func navigationCheck(g policy.Grant, d policy.Destinations) func(context.Context, *url.URL) error {
	return func(ctx context.Context, u *url.URL) error {
		if !g.AllowsClass(policy.ClassNavigate) {
			return errcode.New(errcode.ForeignOrigin, "this task may not navigate")
		}
		if !g.AllowsOrigin(u.Scheme + "://" + u.Host) {
			return errcode.New(errcode.ForeignOrigin, "the navigation's origin is outside this task's grant; it was stopped and the page kept")
		}
		return d.Check(ctx, u)
	}
}

// requestCheck is what every other request of a 1.9.0 session's pages must
// pass: under containment the grant's origins and resources, then the
// destination policy. A host's verdict is kept for the session (at most
// maxCheckedHosts of them): a page of 200 images from one CDN costs one
// lookup, and the browser resolves the name again anyway.
func requestCheck(g policy.Grant, d policy.Destinations) func(context.Context, *url.URL) error {
	var mu sync.Mutex
	verdicts := map[string]error{}
	return func(ctx context.Context, u *url.URL) error {
		if !g.AllowsRequest(u.Scheme + "://" + u.Host) {
			return errcode.New(errcode.ForeignOrigin, "the request's origin is outside this task's containment")
		}
		host := strings.ToLower(u.Hostname())
		mu.Lock()
		err, ok := verdicts[host]
		mu.Unlock()
		if ok {
			return err
		}
		err = d.Check(ctx, u)
		if ctx.Err() != nil {
			return err // a lookup cut short is no verdict to keep
		}
		mu.Lock()
		if len(verdicts) >= maxCheckedHosts {
			clear(verdicts)
		}
		verdicts[host] = err
		mu.Unlock()
		return err
	}
}

// maxCheckedHosts bounds the destination verdicts a session keeps.
const maxCheckedHosts = 256
