package replay_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	demosite "github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/replay"
	"github.com/veetbot/veetbrowser/store"
)

// Recording a session and replaying it: each call's view is re-derived
// from its recorded observation and compared with the view the agent was
// given, byte for byte; then the views are re-projected under a smaller
// budget, to see that each still fits.
func ExampleSession() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stop, err := demosite.Serve(&demosite.Site{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	dir, err := os.MkdirTemp("", "replay")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, filepath.Join(dir, "artifacts.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	id := record(ctx, st, url)
	rep, err := replay.Session(ctx, st, id, replay.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("views:", len(rep.Views), "identical:", rep.Identical())
	rep, err = replay.Session(ctx, st, id, replay.Options{Budget: projection.MinBudget})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("at 1 KiB, all fit:", rep.AllFit)
	// Output:
	// views: 2 identical: true
	// at 1 KiB, all fit: true
}

// record records a session in st that loads url and observes on from its
// first view's next, and returns the session's id.
func record(ctx context.Context, st store.Store, url string) string {
	p, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx)
	rt, err := veetbrowser.New(p, veetbrowser.Options{Store: st, Budget: 2048})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx)
	res, err := s.Navigate(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	var view projection.View
	if err := res.DecodeView(&view); err != nil || view.Next == nil {
		log.Fatalf("the first view has no next: %v", err)
	}
	if _, err := s.Observe(ctx, veetbrowser.ObserveOptions{After: view.Next.After, Cursor: view.Next.Cursor}); err != nil {
		log.Fatal(err)
	}
	return s.ID()
}
