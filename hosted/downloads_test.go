package hosted_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
)

// TestDownloadsTravel: a click on an attachment through the sidecar lands
// the file in the lease's download directory; the act's view and
// browser_downloads, through the sidecar's routes, report it completed
// with the file's digest, as a local session does.
func TestDownloadsTravel(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("statement line, 2026-11; "), 4000)
	sum := sha256.Sum256(body)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<main><h1>Statements</h1><p>Your November statement is ready.</p><a href="/statement">Download statement</a></main>`))
	})
	mux.HandleFunc("/statement", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="november.csv"`)
		w.Write(body)
	})
	base := browsertest.ServeHandler(t, mux)
	sc := startTabs(t)
	s := sc.Open(t, "statements", veetbrowser.SessionOptions{Version: "1.10.0", Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}}})
	var page projection.View
	if err := call(t, s, "browser_navigate", map[string]string{"url": base}).DecodeView(&page); err != nil {
		t.Fatal(err)
	}
	ref := ""
	for _, c := range page.Controls {
		if c.Name == "Download statement" {
			ref = c.Ref
		}
	}
	if ref == "" {
		t.Fatalf("no link in %+v", page.Controls)
	}
	var acted projection.View
	if err := call(t, s, "browser_act", map[string]string{"kind": "click", "ref": ref}).DecodeView(&acted); err != nil {
		t.Fatal(err)
	}
	want := hex.EncodeToString(sum[:])
	if d := acted.Action; d == nil || d.Download == nil || d.Download.State != "completed" || d.Download.SHA256 != want ||
		d.Download.Bytes != int64(len(body)) || d.Download.Name != "november.csv" {
		t.Fatalf("the act's download: %+v", acted.Action)
	}
	var list projection.DownloadsView
	if err := call(t, s, "browser_downloads", map[string]any{}).DecodeView(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Downloads) != 1 || list.Downloads[0].SHA256 != want || list.Coverage.Total != 1 {
		t.Fatalf("browser_downloads through the sidecar: %+v", list)
	}
}
