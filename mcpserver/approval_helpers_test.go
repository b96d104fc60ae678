package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// publishSite serves a page whose Publish button posts to the site: a
// consequential action whose effect the site records.
type publishSite struct {
	url   string
	mu    sync.Mutex
	posts int
}

func servePublish(t *testing.T) *publishSite {
	p := &publishSite{}
	p.url = browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/publish" {
			p.mu.Lock()
			p.posts++
			p.mu.Unlock()
			return
		}
		fmt.Fprint(w, `<!doctype html><button onclick="fetch('/publish', {method: 'POST'}).then(() => document.title = 'sent')">Publish</button>`)
	}))
	return p
}

// waitPosts returns the posts the site received, waiting up to 30 s for
// the first: the page's request is its own, after the click returned.
func (p *publishSite) waitPosts() int {
	deadline := time.Now().Add(30 * time.Second)
	for {
		p.mu.Lock()
		n := p.posts
		p.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// approvingUser says yes to every elicitation and remembers what it was
// asked.
type approvingUser struct {
	mu    sync.Mutex
	asked []string
}

func (u *approvingUser) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		u.mu.Lock()
		u.asked = append(u.asked, req.Params.Message)
		u.mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
}

func (u *approvingUser) questions() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.asked...)
}

// publishApproved clicks Publish through cs and checks that the user was
// asked once, about that button, and the site got exactly one post.
func publishApproved(t *testing.T, cs *mcp.ClientSession, site *publishSite, user *approvingUser) {
	t.Helper()
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": site.url})
	if isErr {
		t.Fatal(text)
	}
	ref := text[strings.Index(text, `"ref":"`)+7:]
	ref = ref[:strings.IndexByte(ref, '"')]
	if text, isErr = call(t, cs, "browser_act", map[string]any{"kind": "click", "ref": ref}); isErr {
		t.Fatal(text)
	}
	asked := user.questions()
	if posts := site.waitPosts(); posts != 1 || len(asked) != 1 || !strings.Contains(asked[0], `button "Publish"`) {
		t.Fatalf("posts %d, approvals asked %q", posts, asked)
	}
}
