package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/projection"
)

// Downloads over MCP (tool version 1.10.0, docs/downloads.md): a completed
// download the view shows is offered as a resource link, never inlined; the
// link is read through resources/read, by the MCP session whose browser
// session downloaded it only, and at most MaxDownloadResource bytes.

// downloadURI is the prefix of a download's resource URI; the rest is the
// file's name, escaped.
const downloadURI = "veetbrowser://download/"

// MaxDownloadResource bounds a download read through resources/read: a
// larger file stays in the download directory.
const MaxDownloadResource = 16 << 20

// addDownloads registers the download resources of a version with them.
func (s *Server) addDownloads() {
	s.MCP.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: downloadURI + "{name}", Name: "download",
		Description: "a file a page of this session downloaded", MIMEType: "application/octet-stream"}, s.readDownload)
}

// downloadLinks are the resource links of the completed downloads a view
// shows: an act's, or browser_downloads'. A view with neither key (every
// observe's) is not parsed: its bytes hold no `"download` outside a string
// (a name is written as is, a string's own quote escaped).
func downloadLinks(view json.RawMessage) []mcp.Content {
	if !bytes.Contains(view, []byte(`"download`)) {
		return nil
	}
	var v struct {
		Action    *projection.Outcome   `json:"action"`
		Downloads []projection.Download `json:"downloads"`
	}
	if json.Unmarshal(view, &v) != nil {
		return nil
	}
	if v.Action != nil && v.Action.Download != nil {
		v.Downloads = append(v.Downloads, *v.Action.Download)
	}
	var links []mcp.Content
	for _, d := range v.Downloads {
		if d.State != browser.DownloadCompleted {
			continue
		}
		size := d.Bytes
		links = append(links, &mcp.ResourceLink{URI: downloadURI + url.PathEscape(d.Name), Name: d.Name,
			MIMEType: "application/octet-stream", Size: &size})
	}
	return links
}

// readDownload answers resources/read for a download of the caller's own
// browser session.
func (s *Server) readDownload(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, err := url.PathUnescape(strings.TrimPrefix(uri, downloadURI))
	if err != nil || !strings.HasPrefix(uri, downloadURI) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	s.mu.Lock()
	p := s.pages[req.Session]
	s.mu.Unlock()
	if p == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	p.mu.Lock()
	local, _ := p.sess.(*veetbrowser.Session)
	p.mu.Unlock()
	if local == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	path := local.DownloadFile(ctx, name)
	if path == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxDownloadResource+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxDownloadResource {
		return nil, &resourceTooLarge{}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/octet-stream", Blob: data}}}, nil
}

type resourceTooLarge struct{}

func (*resourceTooLarge) Error() string {
	return "the download is larger than 16 MiB: it is in the download directory, not readable through MCP"
}
