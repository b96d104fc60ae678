package viewer

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/suite"
)

// TestViewerShowsASuiteSession records the suite's popup sign-in scenario
// with a screenshot after each action, opens it in the viewer with a
// veetbrowser session, and finds every call with its tool and outcome, and
// every screenshot, which loads.
func TestViewerShowsASuiteSession(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, 3*time.Minute)
	st, err := storespec.Open(ctx, filepath.Join(t.TempDir(), "artifacts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rt, err := veetbrowser.New(shared.Get(t), veetbrowser.Options{Store: st, Budget: 8192, ActionScreenshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	report, err := suite.Run(ctx, rt, 8192, "popup-sign-in")
	if err != nil || len(report.Scenarios) != 1 || !report.Passed() {
		t.Fatalf("suite: %v %+v", err, report)
	}
	sessions, err := st.Sessions(ctx, store.ListOptions{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %+v, %v", sessions, err)
	}
	id := sessions[0].ID
	var calls []store.Call
	if err := st.Calls(ctx, id, func(c store.Call) error { calls = append(calls, c); return nil }); err != nil {
		t.Fatal(err)
	}
	blobs, err := st.Blobs(ctx, id)
	if err != nil || len(blobs) == 0 {
		t.Fatalf("no screenshots stored: %v", err)
	}
	base := serve(t, st, Options{Images: StoreImages(st)})

	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	res, err := s.Navigate(ctx, base+"sessions/"+id)
	if err != nil {
		t.Fatal(err)
	}
	// Read the whole timeline, following next.
	text := pageText(res.Observation)
	for res.Observation.NextKey != nil && strings.Contains(string(res.View), `"next"`) {
		var v struct {
			Next map[string]string `json:"next"`
		}
		if err := res.DecodeView(&v); err != nil || v.Next == nil {
			break
		}
		if res, err = s.Observe(ctx, veetbrowser.ObserveOptions{Cursor: v.Next["cursor"]}); err != nil {
			t.Fatal(err)
		}
		text += " " + pageText(res.Observation)
	}
	for i, c := range calls {
		if want := fmt.Sprintf("%d. %s: %s", i+1, c.Tool, c.Outcome); !strings.Contains(text, want) {
			t.Errorf("the viewer does not list %q", want)
		}
	}
	_, page := get(t, base+"sessions/"+id)
	for _, b := range blobs {
		path := fmt.Sprintf("/sessions/%s/images/%d", id, b.ID)
		if !bytes.Contains(page, []byte(`<img src="`+path+`"`)) {
			t.Fatalf("no image %s in the page", path)
		}
		ir, img := get(t, strings.TrimSuffix(base, "/")+path)
		if _, err := jpeg.DecodeConfig(bytes.NewReader(img)); ir.StatusCode != 200 || err != nil {
			t.Fatalf("image %s: %d, %v", path, ir.StatusCode, err)
		}
	}
	t.Logf("%d calls, %d screenshots", len(calls), len(blobs))
}
