package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestStepsElicitOncePerConsequentialStep: one browser_act call with two
// consequential steps elicits two approvals, each naming its own button;
// the user declines the second, and the call stops there: the site got the
// first post and never the second.
func TestStepsElicitOncePerConsequentialStep(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var posts, asked []string
	site := browsertest.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			posts = append(posts, r.URL.Path)
			mu.Unlock()
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Draft</title><nav><a href="/">Drafts</a></nav>
<main><h1>Winter sale</h1><script>function post(p) { const x = new XMLHttpRequest(); x.open('POST', p, false); x.send(); }</script>
<button onclick="post('/publish')">Publish</button> <button onclick="post('/delete')">Delete draft</button></main>`)
	}))
	url, _ := serveHTTP(t, HTTPOptions{})
	cs := connectHTTP(t, url, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": len(asked) == 1}}, nil
	}})
	text, isErr := call(t, cs, "browser_navigate", map[string]any{"url": site})
	if isErr {
		t.Fatal(text)
	}
	var v struct{ Controls []struct{ Name, Ref string } }
	json.Unmarshal([]byte(text), &v)
	ref := map[string]string{}
	for _, c := range v.Controls {
		ref[c.Name] = c.Ref
	}
	text, isErr = call(t, cs, "browser_act", map[string]any{"steps": []map[string]any{
		{"kind": "click", "ref": ref["Publish"]}, {"kind": "click", "ref": ref["Delete draft"]}}})
	if isErr {
		t.Fatal(text)
	}
	var out struct {
		Steps   []string
		Stopped *struct {
			Step int
			Code string
		}
	}
	json.Unmarshal([]byte(text), &out)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(posts, []string{"/publish"}) || !slices.Equal(out.Steps, []string{"ok"}) || out.Stopped == nil ||
		out.Stopped.Step != 2 || out.Stopped.Code != "approval_required" {
		t.Fatalf("posts %q, view %s", posts, text)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], `"Publish"`) || !strings.Contains(asked[1], `"Delete draft"`) {
		t.Fatalf("asked %q", asked)
	}
}
