package suite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Scenarios of downloads (tool version 1.10.0, docs/downloads.md): what a
// download became is in the act's view, not on the page.

// installer is the file the release page offers; its SHA-256 is what the
// agent must report back.
var installer = []byte(strings.Repeat("acme-sync 4.2 installer payload\n", 32<<10)) // 1 MiB

func installerSum() string {
	sum := sha256.Sum256(installer)
	return hex.EncodeToString(sum[:])
}

func downloadsScenarios() []scenario {
	return []scenario{{
		// A release page whose installer the agent downloads; the page asks
		// for the checksum of the file the user received, which only the
		// act's view states.
		id: "download-checksum",
		pages: map[string]func() string{"": static(`<title>Acme Sync 4.2 · Downloads</title><link rel="icon" href="data:,">
<header><nav aria-label="Site"><a href="#">Product</a> · <a href="#">Pricing</a> · <a href="#">Docs</a></nav></header>
<aside aria-label="Other releases"><h2>Other releases</h2><ul><li><a href="#">4.1</a></li><li><a href="#">4.0</a></li></ul></aside>
<main><article><h1>Acme Sync 4.2</h1><p>Faster sync, and two crashes on resume fixed.</p>
<p><a href="installer">Download the installer</a> (1 MB)</p>
<form method="post" action="verify" aria-label="Verify your download"><h2>Verify your download</h2>
<label>SHA-256 of the file you received <input name="sha256" autocomplete="off"></label>
<button>Check</button></form></article></main>
<footer>© Acme</footer>`)},
		handlers: map[string]handler{
			"installer": func(w http.ResponseWriter, r *http.Request, record func(string)) {
				w.Header().Set("Content-Disposition", `attachment; filename="acme-sync-4.2.run"`)
				w.Write(installer)
			},
			"verify": func(w http.ResponseWriter, r *http.Request, record func(string)) {
				b, _ := io.ReadAll(io.LimitReader(r.Body, 1024))
				if strings.TrimPrefix(string(b), "sha256=") == installerSum() {
					record("verify:ok")
				} else {
					record("verify:wrong")
				}
				fmt.Fprint(w, `<main><h1>Checked</h1><p>Thank you.</p></main>`)
			},
		},
		expected: []string{"verify:ok"},
		approve:  []string{"Check"}, // a form submission
		run: func(ctx context.Context, a *agent, _ string) error {
			if err := a.click(ctx, "Download the installer"); err != nil {
				return err
			}
			d := a.view.Action
			if d == nil || d.Download == nil || d.Download.State != "completed" || d.Download.SHA256 == "" {
				return fmt.Errorf("the act's view reports no completed download: %+v", d)
			}
			if err := a.act(ctx, "SHA-256 of the file you received", map[string]any{"kind": "type", "text": d.Download.SHA256}); err != nil {
				return err
			}
			return a.click(ctx, "Check")
		},
	}}
}
