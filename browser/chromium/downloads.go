package chromium

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/tempdir"
)

// Downloads (tool version 1.10.0, docs/downloads.md). The browser is told
// to download every file of a session's browser context into one staging
// directory of the browser, under the download's id ("allowAndName"), and
// to report each download. The reports reach one listener per browser
// (downloadHub), which only queues them: its worker attributes each
// download to the session whose tab's frame began it, and there the
// download is judged: an origin outside the grant is refused and a file
// past a cap is too large, both cancelled at once with nothing kept; a
// completed one is copied into the session's directory under a sanitized,
// unique name, hashed from the copy, and its staging file removed. A
// download no session claims is cancelled. Nothing is ever opened.

// downloadHub is one browser's download listener and worker.
type downloadHub struct {
	p    *Provider
	inst *instance

	start   sync.Once
	staging string // where the browser writes every download; "" until started
	err     error

	mu     sync.Mutex
	queue  []any
	wake   chan struct{}
	owners map[string]*Session // by download id; nil: claimed by none
}

// startDownloads readies the hub of s's browser and tells the browser to
// download the files of s's browser context into its staging directory.
func (s *Session) startDownloads(ctx context.Context, inst *instance, opts *browser.DownloadOptions) error {
	d := &sessionDownloads{opts: *opts, active: map[string]*download{}, changed: make(chan struct{})}
	if d.opts.MaxFile == 0 {
		d.opts.MaxFile = browser.DefaultMaxDownload
	}
	if d.opts.MaxTotal == 0 {
		d.opts.MaxTotal = browser.DefaultMaxDownloadTotal
	}
	hub := s.provider.hubOf(inst)
	if err := hub.ready(); err != nil {
		return err
	}
	d.hub, d.context = hub, chromedp.FromContext(s.first.Context()).BrowserContextID
	s.dl = d
	events := true
	_, err := cdp.Call(ctx, s.browser(), cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: d.context,
		DownloadPath: hub.staging, EventsEnabled: &events})
	if err != nil {
		return errcode.Wrap(errcode.BrowserUnavailable, err, "the browser did not take the download directory")
	}
	return nil
}

// hubOf returns the download hub of inst, making it on first use.
func (p *Provider) hubOf(inst *instance) *downloadHub {
	p.mu.Lock()
	defer p.mu.Unlock()
	if inst.downloads == nil {
		inst.downloads = &downloadHub{p: p, inst: inst, wake: make(chan struct{}, 1), owners: map[string]*Session{}}
	}
	return inst.downloads
}

// ready makes the staging directory and starts the listener and worker,
// once.
func (h *downloadHub) ready() error {
	h.start.Do(func() {
		dir, err := tempdir.Make(tempPrefix + "staging-")
		if err != nil {
			h.err = errcode.Wrap(errcode.BrowserUnavailable, err, "could not create the download directory")
			return
		}
		h.staging = dir
		if err := chromedp.ListenBrowser(h.inst.ctx, h.note); err != nil {
			h.err = errcode.Wrap(errcode.BrowserUnavailable, err, "could not listen for downloads")
			return
		}
		go h.run()
	})
	return h.err
}

// note queues a download event. It runs on the browser's event reader: no
// CDP here, and no lock but the queue's.
func (h *downloadHub) note(ev any) {
	switch ev.(type) {
	case *cdpbrowser.EventDownloadWillBegin, *cdpbrowser.EventDownloadProgress:
	default:
		return
	}
	h.mu.Lock()
	h.queue = append(h.queue, ev)
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// run handles the queued events in order until the browser is gone.
func (h *downloadHub) run() {
	for {
		select {
		case <-h.inst.ctx.Done():
			return
		case <-h.wake:
		}
		h.mu.Lock()
		queue := h.queue
		h.queue = nil
		h.mu.Unlock()
		for _, ev := range queue {
			switch e := ev.(type) {
			case *cdpbrowser.EventDownloadWillBegin:
				h.begin(e)
			case *cdpbrowser.EventDownloadProgress:
				h.progress(e)
			}
		}
	}
}

// begin attributes a download to the session whose frame began it.
func (h *downloadHub) begin(e *cdpbrowser.EventDownloadWillBegin) {
	h.p.mu.Lock()
	sessions := slices.Collect(maps.Keys(h.p.sessions))
	h.p.mu.Unlock()
	var owner *Session
	for _, s := range sessions {
		if s.dl != nil && s.dl.hub == h && s.owns(e.FrameID) {
			owner = s
		}
	}
	h.mu.Lock()
	h.owners[e.GUID] = owner
	h.mu.Unlock()
	if owner == nil {
		h.cancel(e.GUID, "")
		return
	}
	owner.dl.begin(e)
}

func (h *downloadHub) progress(e *cdpbrowser.EventDownloadProgress) {
	h.mu.Lock()
	owner, known := h.owners[e.GUID]
	if e.State != cdpbrowser.DownloadProgressStateInProgress {
		delete(h.owners, e.GUID)
	}
	h.mu.Unlock()
	switch {
	case owner != nil:
		owner.dl.progress(e)
	case known && e.State != cdpbrowser.DownloadProgressStateInProgress:
		h.remove(e.GUID) // claimed by none: cancelled at its start
	}
}

// cancel stops a download in the browser; what it wrote is removed once it
// reports its end (remove).
func (h *downloadHub) cancel(guid string, bctx cdp.BrowserContextID) {
	ctx, done := context.WithTimeout(h.inst.ctx, h.p.timings.TabOpen)
	defer done()
	cdp.Call(ctx, chromedp.FromContext(h.inst.ctx).Browser, cdpbrowser.CancelDownload,
		cdpbrowser.CancelDownloadParams{GUID: guid, BrowserContextID: bctx})
	h.remove(guid)
}

// remove deletes the staging file of a download, and its partial file.
func (h *downloadHub) remove(guid string) {
	if guid == "" || strings.ContainsAny(guid, `/\`) {
		return
	}
	os.Remove(filepath.Join(h.staging, guid))
	os.Remove(filepath.Join(h.staging, guid+".crdownload"))
}

// close removes the staging directory once the browser is gone or closed.
func (h *downloadHub) close() {
	if h.staging != "" {
		os.RemoveAll(h.staging)
	}
}

// owns reports whether one of s's tabs has frame id.
func (s *Session) owns(id cdp.FrameID) bool {
	if s.first.Owns(id) {
		return true
	}
	if s.tabs == nil {
		return false
	}
	s.tabs.mu.Lock()
	defer s.tabs.mu.Unlock()
	for _, e := range s.tabs.entries {
		if e.tab != nil && e.tab.Owns(id) {
			return true
		}
	}
	return false
}

// sessionDownloads are one session's downloads.
type sessionDownloads struct {
	opts    browser.DownloadOptions
	hub     *downloadHub
	context cdp.BrowserContextID

	mu       sync.Mutex
	list     []*download // the oldest MaxKeptDownloads
	more     int
	active   map[string]*download // by id, until they end
	kept     int64                // bytes of the completed files
	begun    uint64               // downloads begun
	reported uint64               // downloads begun before the running operation, or that an action reported
	changed  chan struct{}        // closed and replaced on every change
}

type download struct {
	browser.Download
	seq uint64
}

func (d *download) ended() bool { return d.State != browser.DownloadInProgress }

// changedLocked wakes every waiter.
func (d *sessionDownloads) changedLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

func (d *sessionDownloads) begin(e *cdpbrowser.EventDownloadWillBegin) {
	origin := downloadOrigin(e.URL)
	refused := d.opts.Allowed != nil && !d.opts.Allowed(origin)
	d.mu.Lock()
	d.begun++
	dl := &download{Download: browser.Download{Name: sanitizeName(e.SuggestedFilename), State: browser.DownloadInProgress, Origin: origin}, seq: d.begun}
	if refused {
		dl.State = browser.DownloadRefused
	}
	d.active[e.GUID] = dl
	if len(d.list) < browser.MaxKeptDownloads {
		d.list = append(d.list, dl)
	} else {
		d.more++
	}
	d.changedLocked()
	d.mu.Unlock()
	if refused {
		d.hub.cancel(e.GUID, d.context)
	}
}

func (d *sessionDownloads) progress(e *cdpbrowser.EventDownloadProgress) {
	d.mu.Lock()
	dl := d.active[e.GUID]
	if dl == nil {
		d.mu.Unlock()
		return
	}
	room := min(d.opts.MaxFile, d.opts.MaxTotal-d.kept)
	size := int64(max(e.TotalBytes, e.ReceivedBytes))
	cancel := false
	switch e.State {
	case cdpbrowser.DownloadProgressStateInProgress:
		if !dl.ended() && size > room {
			// Known past a cap from its length or its bytes so far:
			// stopped before the rest arrives.
			dl.State, dl.Bytes, cancel = browser.DownloadTooLarge, size, true
		}
	case cdpbrowser.DownloadProgressStateCanceled:
		if !dl.ended() {
			dl.State = browser.DownloadCanceled
		}
	case cdpbrowser.DownloadProgressStateCompleted:
		if !dl.ended() {
			d.mu.Unlock()
			name, n, sum, err := d.keep(e.GUID, dl.Name, room)
			d.mu.Lock()
			switch {
			case errors.Is(err, errTooLarge):
				dl.State, dl.Bytes = browser.DownloadTooLarge, n
			case err != nil:
				dl.State = browser.DownloadCanceled
			default:
				dl.Name, dl.Bytes, dl.SHA256, dl.State = name, n, sum, browser.DownloadCompleted
				d.kept += n
			}
		}
	}
	if e.State != cdpbrowser.DownloadProgressStateInProgress {
		delete(d.active, e.GUID)
	}
	d.changedLocked()
	d.mu.Unlock()
	if cancel {
		d.hub.cancel(e.GUID, d.context)
	} else if e.State != cdpbrowser.DownloadProgressStateInProgress {
		d.hub.remove(e.GUID)
	}
}

var errTooLarge = errors.New("past the download cap")

// keep copies a completed download from the staging directory into the
// session's directory under a unique name, at most room bytes, and returns
// the name, its size and the SHA-256 of what was written. A file past room
// is removed whole.
func (d *sessionDownloads) keep(guid, name string, room int64) (string, int64, string, error) {
	src, err := os.Open(filepath.Join(d.hub.staging, guid))
	if err != nil {
		return "", 0, "", err
	}
	defer src.Close()
	dst, name, err := createUnique(d.opts.Dir, name)
	if err != nil {
		return "", 0, "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(dst, h), io.LimitReader(src, room+1))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > room {
		err = errTooLarge
	}
	if err != nil {
		os.Remove(filepath.Join(d.opts.Dir, name))
		return "", n, "", err
	}
	return name, n, hex.EncodeToString(h.Sum(nil)), nil
}

// createUnique creates name in dir, or the first free "name (2).ext", …
func createUnique(dir, name string) (*os.File, string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	try := name
	for i := 2; i <= 1000; i++ {
		f, err := os.OpenFile(filepath.Join(dir, try), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, try, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, "", err
		}
		suffix := fmt.Sprintf(" (%d)", i)
		try = cutBytes(stem, browser.MaxDownloadName-len(suffix)-len(ext)) + suffix + ext
	}
	return nil, "", fmt.Errorf("no free name for %q", name)
}

// downloadOrigin is the origin a download's URL names; a blob: URL names
// the origin of the document that made it. "" for anything else.
func downloadOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Scheme == "blob" {
		if u, err = url.Parse(u.Opaque); err != nil {
			return ""
		}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// sanitizeName makes a file name a download may land under: its last path
// element, without control characters or path separators, without leading
// dots or spaces (never hidden, never "..") and at most
// browser.MaxDownloadName bytes, the extension kept; "download" if nothing
// is left.
func sanitizeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfffd || r == ':' {
			return -1
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ". ")
	name = strings.TrimRight(name, ". ")
	if name == "" {
		return "download"
	}
	if len(name) > browser.MaxDownloadName {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		name = cutBytes(strings.TrimSuffix(name, ext), browser.MaxDownloadName-len(ext)) + ext
	}
	return name
}

// cutBytes cuts s to at most n bytes on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// markOperation starts an operation: only a download that begins from now
// on is its action's (one a page began by itself is listed, never taken
// for the next action's).
func (d *sessionDownloads) markOperation() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.reported = d.begun
	d.mu.Unlock()
}

// settleContext is ctx, ended early once a download of the running
// operation begins: an action that started one does not wait for a
// document.
func (d *sessionDownloads) settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d == nil {
		return ctx, func() {}
	}
	sctx, cancel := context.WithCancel(ctx)
	go func() {
		for {
			d.mu.Lock()
			begun, ch := d.begun > d.reported, d.changed
			d.mu.Unlock()
			if begun {
				cancel()
				return
			}
			select {
			case <-ch:
			case <-sctx.Done():
				return
			}
		}
	}()
	return sctx, cancel
}

// downloadBegin bounds how long an action whose navigation ended without
// a document waits for the browser to say it became a download: the
// browser's event and the page's end of navigation come on different
// sessions, and the first is handled on the hub's goroutine.
const downloadBegin = time.Second

// report is the newest download the running operation began, once it
// ended or wait ran out (then in_progress); nil if none began, after
// waiting at most begin for one to begin.
func (d *sessionDownloads) report(ctx context.Context, wait, begin time.Duration) *browser.Download {
	if d == nil {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	bctx, bcancel := context.WithTimeout(wctx, begin)
	defer bcancel()
	for {
		d.mu.Lock()
		var newest *download
		for _, dl := range d.list {
			if dl.seq > d.reported {
				newest = dl
			}
		}
		if newest == nil && d.begun > d.reported {
			// past the listed ones: among those still active
			for _, dl := range d.active {
				if newest == nil || dl.seq > newest.seq {
					newest = dl
				}
			}
		}
		ch := d.changed
		if newest == nil {
			if bctx.Err() == nil {
				d.mu.Unlock()
				select {
				case <-ch:
				case <-bctx.Done():
				}
				continue
			}
			d.reported = d.begun
			d.mu.Unlock()
			return nil
		}
		if newest.ended() || wctx.Err() != nil {
			d.reported = d.begun
			out := newest.Download
			d.mu.Unlock()
			return &out
		}
		d.mu.Unlock()
		select {
		case <-ch:
		case <-wctx.Done():
		}
	}
}

// Downloads implements browser.Downloader.
func (s *Session) Downloads(ctx context.Context) (browser.Downloads, error) {
	if s.dl == nil {
		return browser.Downloads{}, errcode.New(errcode.InvalidArgument, "this session keeps no downloads")
	}
	d := s.dl
	d.mu.Lock()
	defer d.mu.Unlock()
	out := browser.Downloads{List: make([]browser.Download, len(d.list)), More: d.more}
	for i, dl := range d.list {
		out.List[i] = dl.Download
	}
	return out, nil
}

// closeDownloads removes the staging directory of inst's hub, once inst is
// gone.
func (inst *instance) closeDownloads(mu *sync.Mutex) {
	mu.Lock()
	h := inst.downloads
	mu.Unlock()
	if h != nil {
		h.close()
	}
}

// stop cancels the session's downloads in progress as it closes: nothing
// lands after its end.
func (d *sessionDownloads) stop() {
	if d == nil {
		return
	}
	d.mu.Lock()
	var ids []string
	for id, dl := range d.active {
		if !dl.ended() {
			dl.State = browser.DownloadCanceled
		}
		ids = append(ids, id)
	}
	d.changedLocked()
	d.mu.Unlock()
	for _, id := range ids {
		d.hub.cancel(id, d.context)
	}
}
