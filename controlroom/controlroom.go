// Package controlroom is the live control room: a web page, served by the
// process that runs the sessions, where a person sees each live session (a
// masked picture of its page, the model's last view, the recorded
// timeline) and answers the approvals its consequential actions wait for.
//
// It is a person's page, never the model's: its address and login token go
// to the operator (stderr), never into a view or a record. A one-time login
// token becomes an HttpOnly, SameSite=Strict session cookie; every request
// needs that cookie and a loopback Host name, and every state-changing
// request also the page's own Origin and the session's CSRF token
// (docs/controlroom.md).
package controlroom

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
)

// Bounds of the control room.
const (
	// DefaultApprovalTimeout is how long a consequential action waits for
	// a person's answer when Options sets none.
	DefaultApprovalTimeout = 5 * time.Minute
	// PictureInterval is the shortest time between two pictures of one
	// page: every watcher shares the newest one, so watching never costs
	// the page more than one capture a PictureInterval.
	PictureInterval = time.Second
	// pictureTimeout bounds one capture: the page's operation lock may be
	// held by an action waiting for its approval, and the picture taken
	// before it then stays on show.
	pictureTimeout = 2 * time.Second
	// MaxPendingPerPage bounds the approvals one page waits for at once
	// (one action at a time holds its lock: one is the usual number).
	MaxPendingPerPage = 8
	// MaxWatchers bounds the live pictures of one page streamed at once.
	MaxWatchers = 8
)

// SourceControlRoom is the approval source of the records of actions a
// person approved in the control room.
const SourceControlRoom = "control_room"

// Live is what the control room reads of a live session: its id in the
// artifact store and a masked picture of its page (a JPEG); where a
// person's input goes while they hold the page (browser_handoff or a
// takeover); and how a person takes the page over unasked and hands it
// back (veetbrowser.Session.TakeOver, HandBack).
type Live interface {
	ID() string
	Picture(ctx context.Context) ([]byte, error)
	PersonInput(ctx context.Context, in browser.PersonInput) error
	Screencast(ctx context.Context, each func(jpeg []byte)) error
	TakeOver(ctx context.Context) error
	HandBack(ctx context.Context, by string) error
}

// Options configure a control room.
type Options struct {
	// ApprovalTimeout is how long an action waits for a person's answer;
	// 0 is DefaultApprovalTimeout.
	ApprovalTimeout time.Duration
	// Timeline serves the recorded timelines under /sessions/ (the
	// viewer's handler); nil shows none.
	Timeline http.Handler
	// Path is where the room is served, its cookie's path ("" is "/"):
	// the sidecar serves each tenant's room under its own path. The room's
	// handler sees paths with it stripped.
	Path string
}

// Room is one control room: its login, the live pages and the approvals
// they wait for.
type Room struct {
	opts     Options
	token    string        // the one-time login token
	interval time.Duration // between two pictures of a page: PictureInterval
	mux      *http.ServeMux

	mu      sync.Mutex
	logins  map[[32]byte]bool   // SHA-256 of the one-time login tokens not spent yet
	cookies map[[32]byte]string // SHA-256 of a session cookie → its CSRF token
	pages   map[string]*Page
	order   []string // page ids, oldest first
}

// New returns a control room with a fresh one-time login token.
func New(opts Options) *Room {
	if opts.ApprovalTimeout <= 0 {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	if opts.Path == "" {
		opts.Path = "/"
	}
	r := &Room{opts: opts, token: randomToken(), interval: PictureInterval, cookies: map[[32]byte]string{}, pages: map[string]*Page{},
		logins: map[[32]byte]bool{}}
	r.logins[sha256.Sum256([]byte(r.token))] = true
	r.routes()
	return r
}

// maxLogins bounds the login links issued and not used yet.
const maxLogins = 16

// NewLogin issues another one-time login link (the sidecar's tenants ask
// for one each time), as a path within the room.
func (r *Room) NewLogin() string {
	token := randomToken()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.logins) >= maxLogins {
		clear(r.logins) // the oldest are no better than the newest: start over
	}
	r.logins[sha256.Sum256([]byte(token))] = true
	return "/login?token=" + token
}

// LoginPath is the path (with its one-time token) that logs a person in:
// the operator is given it once, on stderr.
func (r *Room) LoginPath() string { return "/login?token=" + r.token }

// randomToken returns 32 random bytes in hex.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Page is one live session in the control room.
type Page struct {
	room  *Room
	id    string
	label string

	mu      sync.Mutex
	live    Live // nil until the session opened
	view    []byte
	viewAt  time.Time
	pending []*pending
	hold    *hold // the person holds the page (browser_handoff); nil: the agent does

	shotMu sync.Mutex // one capture at a time
	shot   []byte
	shotAt time.Time

	castMu sync.Mutex
	cast   *cast // the live picture (stream.go); nil when no one watches
}

// pending is one consequential action waiting for a person.
type pending struct {
	id     string
	facts  policy.Facts
	digest string // of the facts: an answer names the facts it saw
	asked  time.Time
	answer chan bool // buffered; answered once
}

// hold is one handoff: the agent's reason, since when the person holds
// the page, and the channel Hand back closes; or a takeover (the person
// took the page unasked: no reason, no channel, Hand back is the
// session's HandBack).
type hold struct {
	reason   string
	since    time.Time
	back     chan struct{}
	takeover bool
}

// Add shows a new live session under label; Remove takes it away.
func (r *Room) Add(label string) *Page {
	p := &Page{room: r, id: randomToken()[:16], label: label}
	r.mu.Lock()
	r.pages[p.id] = p
	r.order = append(r.order, p.id)
	r.mu.Unlock()
	return p
}

// Remove takes the page out of the room (its session ended: a call still
// waiting for an approval ends with it).
func (p *Page) Remove() {
	r := p.room
	r.mu.Lock()
	delete(r.pages, p.id)
	for i, id := range r.order {
		if id == p.id {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
}

// SetLive names the page's session once it is open.
func (p *Page) SetLive(l Live) {
	p.mu.Lock()
	p.live = l
	p.mu.Unlock()
}

// SetView keeps the model's newest view, byte for byte as the model got it.
func (p *Page) SetView(view []byte) {
	p.mu.Lock()
	p.view, p.viewAt = append([]byte(nil), view...), time.Now()
	p.mu.Unlock()
}

// Approve implements policy.Approver; ApproveFrom names the source.
func (p *Page) Approve(ctx context.Context, f policy.Facts) (bool, error) {
	ok, _, err := p.ApproveFrom(ctx, f)
	return ok, err
}

// ApproveFrom shows the action's facts in the control room and waits for
// a person's answer, up to the room's approval timeout: yes, approval_
// refused for a no, approval_required when no one answered. Only this
// call waits: other pages' calls go on.
func (p *Page) ApproveFrom(ctx context.Context, f policy.Facts) (bool, string, error) {
	digest, _ := json.Marshal(f)
	sum := sha256.Sum256(digest)
	a := &pending{id: randomToken()[:16], facts: f, digest: hex.EncodeToString(sum[:]), asked: time.Now(), answer: make(chan bool, 1)}
	p.mu.Lock()
	if len(p.pending) >= MaxPendingPerPage {
		p.mu.Unlock()
		return false, "", errcode.Wrap(errcode.ApprovalRequired, &policy.NeedsApproval{Facts: f}, "too many approvals are waiting in the control room: %s", f)
	}
	p.pending = append(p.pending, a)
	p.mu.Unlock()
	defer p.drop(a)
	t := time.NewTimer(p.room.opts.ApprovalTimeout)
	defer t.Stop()
	select {
	case yes := <-a.answer:
		if yes {
			return true, SourceControlRoom, nil
		}
		return false, "", errcode.New(errcode.ApprovalRefused, "a person refused %s in the control room", f)
	case <-t.C:
		return false, "", errcode.Wrap(errcode.ApprovalRequired, &policy.NeedsApproval{Facts: f},
			"no one answered in the control room within %s: %s", p.room.opts.ApprovalTimeout, f)
	case <-ctx.Done():
		return false, "", ctx.Err()
	}
}

// Handoff implements veetbrowser.Handoffer: the room shows the agent's
// reason with the live page and a Hand back button; the person drives the
// page (input) until they press it, or the timeout passes.
func (p *Page) Handoff(ctx context.Context, reason string, timeout time.Duration) (veetbrowser.HandoffEnd, error) {
	end := veetbrowser.HandoffEnd{By: SourceControlRoom}
	h := &hold{reason: reason, since: time.Now(), back: make(chan struct{})}
	p.mu.Lock()
	if p.hold != nil {
		p.mu.Unlock()
		return end, errcode.New(errcode.HumanInControl, "a person already holds the page")
	}
	p.hold = h
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if p.hold == h {
			p.hold = nil
		}
		p.mu.Unlock()
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-h.back:
		end.HandedBack = true
		return end, nil
	case <-t.C:
		return end, nil
	case <-ctx.Done():
		return end, ctx.Err()
	}
}

// handBack ends the page's handoff or takeover; it reports whether one
// was on, and a takeover's hand-back failure (the record or the fresh
// observation).
func (p *Page) handBack(ctx context.Context) (bool, error) {
	p.mu.Lock()
	h, live := p.hold, p.live
	if h != nil && !h.takeover {
		p.hold = nil // the person's input is refused from now
	}
	p.mu.Unlock()
	if h == nil {
		return false, nil
	}
	if !h.takeover {
		close(h.back)
		return true, nil
	}
	// A takeover stays on show until the session took its fresh
	// observation and let the agent in again: a room that offered
	// "Take over" earlier would say the agent has the page before it does.
	err := live.HandBack(ctx, SourceControlRoom)
	p.mu.Lock()
	if p.hold == h {
		p.hold = nil
	}
	p.mu.Unlock()
	return true, err
}

// takeOver makes the person hold the page unasked: exactly as in a
// handoff, once the agent's running page call ended.
func (p *Page) takeOver(ctx context.Context) error {
	p.mu.Lock()
	live, on := p.live, p.hold != nil
	p.mu.Unlock()
	if live == nil {
		return errcode.New(errcode.NotActionable, "the session has no page yet")
	}
	if on {
		return errcode.New(errcode.HumanInControl, "a person already holds the page")
	}
	// The session's held flag decides between a takeover and the agent's
	// browser_handoff: only one of them gets the page.
	if err := live.TakeOver(ctx); err != nil {
		return err
	}
	p.mu.Lock()
	p.hold = &hold{since: time.Now(), takeover: true}
	p.mu.Unlock()
	return nil
}

// held returns the live session while a person holds the page; nil when
// the agent does.
func (p *Page) held() Live {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold == nil {
		return nil
	}
	return p.live
}

// drop removes a pending approval, answered or not.
func (p *Page) drop(a *pending) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, q := range p.pending {
		if q == a {
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			return
		}
	}
}

// answer gives a person's answer to approval id of the facts digest: once.
// It reports whether that approval was waiting.
func (r *Room) answer(id, digest string, yes bool) bool {
	r.mu.Lock()
	pages := make([]*Page, 0, len(r.pages))
	for _, p := range r.pages {
		pages = append(pages, p)
	}
	r.mu.Unlock()
	for _, p := range pages {
		p.mu.Lock()
		for i, a := range p.pending {
			if a.id == id && a.digest == digest {
				// Taken off the list now: a second answer finds nothing.
				p.pending = append(p.pending[:i], p.pending[i+1:]...)
				p.mu.Unlock()
				a.answer <- yes
				return true
			}
		}
		p.mu.Unlock()
	}
	return false
}

// picture returns the page's newest masked picture, taking a new one at
// most once a PictureInterval.
func (p *Page) picture(ctx context.Context) []byte {
	p.mu.Lock()
	live := p.live
	p.mu.Unlock()
	p.shotMu.Lock()
	defer p.shotMu.Unlock()
	if live == nil || time.Since(p.shotAt) < p.room.interval {
		return p.shot
	}
	ctx, cancel := context.WithTimeout(ctx, pictureTimeout)
	defer cancel()
	if jpeg, err := live.Picture(ctx); err == nil {
		p.shot = jpeg
	}
	p.shotAt = time.Now()
	return p.shot
}
