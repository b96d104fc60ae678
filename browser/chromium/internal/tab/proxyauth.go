package tab

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
)

// The credentials of a keyed egress proxy (a browser on another machine,
// docs/navigation.md): the proxy answers 407 to whatever does not carry
// the session's credentials, and the tab answers the browser's proxy
// challenge with them (Fetch.enable's handleAuthRequests, on the page's
// session and each out-of-process frame's). The browser keeps them for
// the context once one request is through, so what Fetch does not pause
// (a WebSocket, a preconnect, a popup's first request) carries them too;
// what asks before that gets no connection. A server's own challenge is
// left to the browser.

// ProxyCredentials answer the session's proxy's challenge.
type ProxyCredentials struct{ User, Password string }

// answered holds the requests whose proxy challenge a tab answered: a
// second challenge of one means the proxy refused the credentials (the
// session closed), and is cancelled instead of answered again.
type answered struct {
	mu  sync.Mutex
	ids map[fetch.RequestID]bool
}

// first records id and reports whether it was new. The set is small: a
// challenge comes once per connection to the proxy before the browser
// keeps the credentials.
func (a *answered) first(id fetch.RequestID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ids == nil || len(a.ids) > 256 {
		a.ids = map[fetch.RequestID]bool{}
	}
	if a.ids[id] {
		return false
	}
	a.ids[id] = true
	return true
}

// answerAuth answers one challenge paused on session s. It runs in its own
// goroutine: the event listener must not issue CDP commands.
func (t *Tab) answerAuth(s cdp.Session, ev *fetch.EventAuthRequired) {
	ctx, cancel := context.WithTimeout(t.ctx, t.timings.NavigationDecision)
	defer cancel()
	res := &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseDefault}
	if ev.AuthChallenge != nil && ev.AuthChallenge.Source == fetch.AuthChallengeSourceProxy && t.proxyAuth != nil {
		res.Response = fetch.AuthChallengeResponseResponseCancelAuth
		if t.authAnswered.first(ev.RequestID) {
			res = &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials,
				Username: t.proxyAuth.User, Password: t.proxyAuth.Password}
		}
	}
	cdp.Call(ctx, s, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: ev.RequestID, AuthChallengeResponse: res})
}
