package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/controlroom"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/chromeflags"
)

// blogSite serves an article with a menu, a sidebar, comments and a
// comment form whose "Post comment" button submits it: a consequential
// action whose effect the site counts.
type blogSite struct {
	url      string
	mu       sync.Mutex
	comments []string
}

func serveBlog(t *testing.T) *blogSite {
	b := &blogSite{}
	b.url = browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/comments" {
			r.ParseForm()
			b.mu.Lock()
			b.comments = append(b.comments, r.Form.Get("body"))
			b.mu.Unlock()
			fmt.Fprint(w, `<!doctype html><title>Thanks</title><main><h1>Your comment is awaiting moderation</h1></main>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Notes from the garden</title>
<header><nav aria-label="Site"><a href="/">Home</a> <a href="/archive">Archive</a> <a href="/about">About</a></nav></header>
<main><article><h1>Tomatoes in a cold spring</h1><p>Start them indoors six weeks before the last frost, and harden them off slowly.</p>
<section aria-label="Comments"><h2>2 comments</h2><div class="comment"><b>Ana</b><p>Mine split in the rain.</p></div>
<div class="comment"><b>Joe</b><p>Try a cloche.</p></div>
<form method="post" action="/comments" aria-label="Leave a comment"><label>Comment <textarea name="body">Lovely post</textarea></label>
<button>Post comment</button></form></section></article></main>
<aside><h2>Popular</h2><a href="/beans">Beans</a></aside><footer>© the garden</footer>`)
	}))
	return b
}

func (b *blogSite) posted() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.comments...)
}

// person starts a second Chromium, the person's, logged in to the control
// room at base.
func person(t *testing.T, base string, room *controlroom.Room) context.Context {
	t.Helper()
	exe, err := browser.FindChromium("")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "room")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	opts := append(chromeflags.Private(), chromedp.ExecPath(exe), chromedp.UserDataDir(dir), chromedp.Env("HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir, "TMPDIR="+dir))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, stop := chromedp.NewContext(alloc)
	t.Cleanup(func() { chromedp.Cancel(ctx); stop(); stopAlloc() })
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+room.LoginPath())); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.querySelector('#status').textContent.includes('live session')`)
	return ctx
}

// waitFor waits up to 30 s for a predicate on the person's page.
func waitFor(t *testing.T, ctx context.Context, predicate string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.outerHTML`))
		t.Fatalf("waiting for %s: %v\n%s", predicate, err, html)
	}
}

// clickOn scrolls the element sel into view and clicks its middle with
// trusted mouse input, as a person does.
func clickOn(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := click(ctx, sel, 30*time.Second); err != nil {
		t.Fatalf("no %s to click: %v", sel, err)
	}
}

// click is clickOn's click, waiting for sel at most wait.
func click(ctx context.Context, sel string, wait time.Duration) error {
	xy, err := chromedp.Run(ctx, chromedp.Poll[[]float64](`(() => { const e = document.querySelector(`+"`"+sel+"`"+`);
		if (!e) return null; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return r.width ? [r.x + r.width / 2, r.y + r.height / 2] : null })()`,
		chromedp.WithPollingTimeout(wait)))
	if err != nil {
		return err
	}
	return chromedp.Do(ctx, chromedp.MouseClickXY(xy[0], xy[1]))
}

// clickUntil clicks sel until predicate holds, as a person clicks again a
// button that did not take: the room rebuilds a page's section when its
// state changes, and a section above that grew between finding the
// button and the click (its picture loaded) moves the button away from
// the point clicked. Once sel is gone, it only waits for predicate.
func clickUntil(t *testing.T, ctx context.Context, sel, predicate string) {
	t.Helper()
	for range 5 {
		if click(ctx, sel, 5*time.Second) != nil {
			break
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(5*time.Second))); err == nil {
			return
		}
	}
	waitFor(t, ctx, predicate)
}

// textOf reads the text of the element sel on the person's page.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+"`"+sel+"`"+`).textContent`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// roomServer is an MCP server whose pages are shown in a control room.
func roomServer(t *testing.T, timeout time.Duration) (*controlroom.Room, string, func() *mcp.ClientSession) {
	room := controlroom.New(controlroom.Options{ApprovalTimeout: timeout})
	srv := httptest.NewServer(room)
	t.Cleanup(srv.Close)
	opts := Options{Room: room}
	return room, srv.URL, func() *mcp.ClientSession { return connect(t, opts) }
}

// postComment navigates cs to the blog and clicks "Post comment" in a
// goroutine; the channel gets the click's answer.
func postComment(t *testing.T, cs *mcp.ClientSession, site *blogSite) chan string {
	t.Helper()
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": site.url})
	if isErr {
		t.Fatal(text)
	}
	if text, isErr = call(t, cs, "browser_find", map[string]any{"query": "Post comment"}); isErr {
		t.Fatal(text)
	}
	ref := refOf(t, text, "Post comment")
	done := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser_act", Arguments: map[string]any{"kind": "click", "ref": ref}})
		if err != nil {
			done <- "call failed: " + err.Error()
			return
		}
		done <- fmt.Sprintf("%v %s", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}()
	return done
}

// refOf finds the ref of the control named name in a view.
func refOf(t *testing.T, view, name string) string {
	t.Helper()
	i := strings.Index(view, `"name":"`+name+`"`)
	if i < 0 {
		t.Fatalf("no %q in %s", name, view)
	}
	j := strings.LastIndex(view[:i], `"ref":"`)
	ref := view[j+7:]
	return ref[:strings.IndexByte(ref, '"')]
}

// answerInRoom waits for the approval in the person's control room, checks
// the facts it shows and clicks button (approve or deny).
func answerInRoom(t *testing.T, ctx context.Context, button string) {
	t.Helper()
	waitFor(t, ctx, `document.querySelector('.approval button.`+button+`')`)
	facts, view := textOf(t, ctx, `.approval .facts`), textOf(t, ctx, `section.page:has(.approval) pre.view`)
	outcome := map[string]string{"approve": "approved", "deny": "denied"}[button]
	clickUntil(t, ctx, `.approval button.`+button, `document.querySelector('#answers li') && document.querySelector('#answers li').textContent.startsWith('`+outcome+`: ')`)
	if !strings.Contains(facts, `button "Post comment"`) || !strings.Contains(facts, `form "Leave a comment"`) {
		t.Fatalf("the control room shows %q", facts)
	}
	if !strings.Contains(view, "Post comment") {
		t.Fatalf("the control room's view of the model is %q", view)
	}
}

// TestControlRoomApprovesForAClientWithoutElicitation: an MCP client that
// cannot elicit clicks a form's submit button; the click waits until a
// person, in a second Chromium, presses Approve in the control room; the
// site gets exactly one comment. Deny is approval_refused and nothing
// reaches the site; no answer within the timeout is approval_required.
func TestControlRoomApprovesForAClientWithoutElicitation(t *testing.T) {
	t.Parallel()
	room, base, open := roomServer(t, time.Minute)
	ctx := person(t, base, room)

	site := serveBlog(t)
	first := open()
	done := postComment(t, first, site)
	// While the click waits for its approval, another session goes on.
	waitFor(t, ctx, `document.querySelector('.approval button.approve')`)
	other := open()
	if text, isErr := call(t, other, "browser_navigate", map[string]any{"url": serveBlog(t).url}); isErr {
		t.Fatalf("another session, while an approval waits: %s", text)
	}
	select {
	case got := <-done:
		t.Fatalf("the click did not wait for its approval: %s", got)
	default:
	}
	answerInRoom(t, ctx, "approve")
	if got := <-done; !strings.HasPrefix(got, "false ") {
		t.Fatalf("the approved click: %s", got)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(site.posted()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := site.posted(); len(got) != 1 || got[0] != "Lovely post" {
		t.Fatalf("the site got %q", got)
	}
	if img, err := chromedp.Run(ctx, chromedp.Poll[bool](`[...document.querySelectorAll('img.picture')].some(i => i.naturalWidth > 0)`, chromedp.WithPollingTimeout(30*time.Second))); err != nil || !img {
		t.Fatalf("no picture of the page in the control room: %v", err)
	}

	denied := serveBlog(t)
	second := open()
	done = postComment(t, second, denied)
	answerInRoom(t, ctx, "deny")
	if got := <-done; !strings.HasPrefix(got, "true ") || !strings.Contains(got, `"approval_refused"`) {
		t.Fatalf("the denied click: %s", got)
	}
	if got := denied.posted(); len(got) != 0 {
		t.Fatalf("a denied comment reached the site: %q", got)
	}
	// A session that ends leaves the room, its picture with it.
	first.Close()
	second.Close()
	other.Close()
	waitFor(t, ctx, `document.querySelectorAll('section.page').length == 0`)
}

func TestControlRoomTimeoutIsApprovalRequired(t *testing.T) {
	t.Parallel()
	_, _, open := roomServer(t, time.Second)
	site := serveBlog(t)
	if got := <-postComment(t, open(), site); !strings.HasPrefix(got, "true ") || !strings.Contains(got, `"approval_required"`) {
		t.Fatalf("the unanswered click: %s", got)
	}
	if got := site.posted(); len(got) != 0 {
		t.Fatalf("an unanswered comment reached the site: %q", got)
	}
}
