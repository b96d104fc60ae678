package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/projection"
)

// TestDownloadOfferedAsResourceLink: over MCP, the act that downloads a
// 1 MB file answers with its 1 KiB view and a resource link, never the
// file inline; resources/read gives the file to that MCP session, and
// another MCP session of the same server cannot read it.
func TestDownloadOfferedAsResourceLink(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	file := bytes.Repeat([]byte("veetbrowser-download "), size/21+1)[:size]
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<header><nav><a href="/">Home</a></nav></header><main><h1>Invoices</h1>
<p>Your invoice for November is ready.</p><a href="/invoice">Download invoice</a></main><footer>Billing</footer>`)
	})
	mux.HandleFunc("/invoice", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="invoice-2026-11.pdf"`)
		w.Write(file)
	})
	base := browsertest.ServeHandler(t, mux)

	ctx := browsertest.Context(t, time.Minute)
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Budget: 1024})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(rt, Options{DownloadDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	clientOf := func() *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := s.MCP.Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := clientOf(), clientOf()

	text, isErr := call(t, a, "browser_navigate", map[string]any{"url": base})
	var v projection.View
	if isErr || json.Unmarshal([]byte(text), &v) != nil {
		t.Fatalf("navigate: %s", text)
	}
	ref := ""
	for _, c := range v.Controls {
		if c.Name == "Download invoice" {
			ref = c.Ref
		}
	}
	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "browser_act", Arguments: map[string]any{"kind": "click", "ref": ref}})
	if err != nil || res.IsError {
		t.Fatalf("act: %v %+v", err, res)
	}
	var link *mcp.ResourceLink
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			link = c
		case *mcp.TextContent:
			if len(c.Text) > 1024 {
				t.Fatalf("the view is %d bytes, over the budget", len(c.Text))
			}
		default:
			t.Fatalf("unexpected content %T", c)
		}
	}
	if link == nil || link.Name != "invoice-2026-11.pdf" || link.Size == nil || *link.Size != size {
		t.Fatalf("link %+v", link)
	}
	got, err := a.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
	if err != nil || len(got.Contents) != 1 || !bytes.Equal(got.Contents[0].Blob, file) {
		t.Fatalf("read: %v", err)
	}
	call(t, b, "browser_navigate", map[string]any{"url": base}) // b has a browser session of its own
	if _, err := b.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI}); err == nil {
		t.Fatal("another MCP session read the download")
	}
}

// TestDownloadLinksOfAViewWithout: a view that shows no download (an
// observe's) is not parsed for links; one that names a completed
// download, in an act's outcome or in browser_downloads' list, still
// gets its link, and a page's text that quotes the key changes nothing.
func TestDownloadLinksOfAViewWithout(t *testing.T) {
	without := json.RawMessage(`{"version":"1.10.0","url":"http://127.0.0.1/","controls":[{"ref":"c1","role":"link","name":"Download invoice"}]}`)
	if n := testing.AllocsPerRun(100, func() { downloadLinks(without) }); n != 0 {
		t.Errorf("a view without downloads costs %v allocations, want 0: it was parsed", n)
	}
	for _, view := range []string{
		string(without),
		`{"version":"1.10.0","text":[{"text":"Click \"download\": {\"state\":\"completed\"}"}]}`,
	} {
		if links := downloadLinks(json.RawMessage(view)); links != nil {
			t.Errorf("%s: links %v", view, links)
		}
	}
	for _, view := range []string{
		`{"version":"1.10.0","action":{"dispatched":true,"download":{"name":"a b.pdf","bytes":3,"state":"completed"}}}`,
		`{"version":"1.10.0","downloads":[{"name":"a b.pdf","bytes":3,"state":"completed"},{"name":"c","bytes":1,"state":"in_progress"}]}`,
	} {
		links := downloadLinks(json.RawMessage(view))
		if len(links) != 1 || links[0].(*mcp.ResourceLink).URI != downloadURI+"a%20b.pdf" {
			t.Errorf("%s: links %v", view, links)
		}
	}
}
