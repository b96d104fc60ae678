package veetbrowser_test

import (
	"bytes"
	"encoding/json"
	"image/jpeg"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/tools"
)

// TestScreenshotToolStoresItsImage: browser_screenshot answers with a
// summary view and a masked JPEG, which the store keeps with the call and
// the revision it shows; a 1.7.0 session has no such tool.
func TestScreenshotToolStoresItsImage(t *testing.T) {
	t.Parallel()
	st, dump := openSQLite(t)
	base := browsertest.Serve(t, `<title>Form</title><label>Name <input value="CANARY-INPUT"></label>
<label>Secret <input type="password" value="CANARY-PASSWORD"></label><button>Send</button>`)
	rt, s := grantedSession(t, st, base, veetbrowser.SessionOptions{})
	ctx := browsertest.Context(t, time.Minute)
	nav, err := s.Navigate(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Call(ctx, tools.Screenshot, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var view veetbrowser.ShotSummary
	if err := json.Unmarshal(res.View, &view); err != nil || view.Shot.MediaType != "image/jpeg" || view.Shot.Masked < 2 ||
		view.Revision != nav.Observation.Revision || res.Image == nil || view.Shot.Bytes != len(res.Image.Data) {
		t.Fatalf("view %s (%v), image %v", res.View, err, res.Image != nil)
	}
	if _, err := jpeg.DecodeConfig(bytes.NewReader(res.Image.Data)); err != nil {
		t.Fatal(err)
	}
	blobs, err := st.Blobs(ctx, s.ID())
	if err != nil || len(blobs) != 1 || blobs[0].Seq != 2 || blobs[0].Revision != view.Revision || blobs[0].Bytes != int64(len(res.Image.Data)) {
		t.Fatalf("blobs %+v, %v", blobs, err)
	}
	if _, err := s.Call(ctx, tools.Screenshot, json.RawMessage(`{"ref":"e1","full_page":true}`)); errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("ref and full_page: %v", err)
	}
	for _, c := range []string{"CANARY-INPUT", "CANARY-PASSWORD"} {
		if bytes.Contains(dump(), []byte(c)) {
			t.Errorf("%s is in the store", c)
		}
	}

	old := openSession(t, rt, veetbrowser.SessionOptions{Version: "1.7.0"})
	if _, err := old.Call(ctx, tools.Screenshot, json.RawMessage(`{}`)); errcode.Of(err) != errcode.InvalidArgument {
		t.Errorf("1.7.0 screenshot: %v", err)
	}
}
