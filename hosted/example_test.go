package hosted_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/sidecar"
	"github.com/veetbot/veetbrowser/store/sqlitestore"
)

// A hosted session: a sidecar (veetbrowser serve) runs the browsers, and
// the client leases one of its tenant's profiles and drives the session
// by tool name, with the views and error codes of a local session. Here
// the sidecar runs in the same process, on loopback.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stop, err := demo.Serve(&demo.Site{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	sidecarURL, token, stopSidecar := serveSidecar(ctx)
	defer stopSidecar()

	opts := hosted.Options{URL: sidecarURL, Token: token, Profile: "demo"}
	if err := hosted.CreateProfile(ctx, opts); err != nil {
		log.Fatal(err)
	}
	s, err := hosted.Open(ctx, opts) // leases the profile: its browser starts on the sidecar
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx) // ends the lease

	res, err := s.Call(ctx, "browser_navigate", []byte(fmt.Sprintf(`{"url": %q}`, url)))
	if err != nil {
		log.Fatal(err)
	}
	var view projection.View
	if err := res.DecodeView(&view); err != nil {
		log.Fatal(err)
	}
	fmt.Println("title:", view.Title)
	_, err = s.Call(ctx, "browser_act", []byte(`{"kind": "click", "ref": "cBOGUS"}`))
	fmt.Println("bogus ref:", errcode.Of(err))
	// Output:
	// title: Veet Social — Home
	// bogus ref: unknown_reference
}

// serveSidecar serves a sidecar on 127.0.0.1 with one tenant, whose leases
// each launch a Chromium on their profile, and returns its URL, the
// tenant's token and a func that stops it.
func serveSidecar(ctx context.Context) (url, token string, stop func()) {
	dir, err := os.MkdirTemp("", "sidecar")
	if err != nil {
		log.Fatal(err)
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "sidecar.db")) // leases and call records
	if err != nil {
		log.Fatal(err)
	}
	token, line, err := sidecar.NewToken("tenant") // line is the token file's entry
	if err != nil {
		log.Fatal(err)
	}
	tokens, err := sidecar.ParseTokens(strings.NewReader(line))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := sidecar.New(ctx, sidecar.Options{Data: filepath.Join(dir, "profiles"), Tokens: tokens, Store: st,
		Browsers: sidecar.Launched{}})
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	return hs.URL, token, func() {
		hs.Close()
		srv.Close(context.Background())
		st.Close()
		os.RemoveAll(dir)
	}
}
