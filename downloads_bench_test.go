package veetbrowser

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/store"
)

// BenchmarkDownloadClick: a click on a link to a 1 MB attachment, as a
// model makes it (navigate, then act). 1.9.0 waits for a document that
// never comes (the settle bound, 15 s) and keeps no file; 1.10.0 stops
// waiting when the download begins, keeps the file and hashes it.
func BenchmarkDownloadClick(b *testing.B) {
	for _, version := range []string{"1.9.0", "1.10.0"} {
		b.Run(version, func(b *testing.B) {
			base := downloadSiteB(b, "Linux=/files/1048576?name=acme.tar.gz")
			rt, err := New(shared.Get(b), Options{Store: store.Discard})
			if err != nil {
				b.Fatal(err)
			}
			s, err := rt.NewSession(b.Context(), SessionOptions{Version: version, DownloadDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(b.Context())
			ctx := browsertest.Context(b, 10*time.Minute)
			for b.Loop() {
				res, err := s.Navigate(ctx, base)
				if err != nil {
					b.Fatal(err)
				}
				ref := ""
				for _, c := range res.Observation.Controls {
					if c.Name == "Download Linux" {
						ref = c.Ref
					}
				}
				if _, err := s.Call(ctx, "browser_act", json.RawMessage(fmt.Sprintf(`{"kind":"click","ref":%q}`, ref))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
