package chromium

import (
	"context"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// stageFiles stages files as they are.
func stageFiles(files ...string) browser.Stage {
	return func(context.Context, browser.UploadTarget) ([]string, error) { return files, nil }
}

// TestUploadStagesOnlyAfterTheGuards: an upload that the reference, the
// live guards or the authorization refuse never asks for its files; one
// that passes names its control, the same for the same element.
func TestUploadStagesOnlyAfterTheGuards(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, `<label>A <input type="file"></label><label>B <input type="file"></label>`+
		`<label id="h">Hidden <input type="file"></label><button>Other</button>`)
	s := openSession(t)
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	file := t.TempDir() + "/a.txt"
	writeFile(t, file, "a")
	var staged []browser.UploadTarget
	stage := func(_ context.Context, to browser.UploadTarget) ([]string, error) {
		staged = append(staged, to)
		return []string{file}, nil
	}
	refuse := func(context.Context, string, policy.Facts) (policy.Permit, error) {
		return policy.Permit{}, errcode.New(errcode.ApprovalRequired, "refused by the test")
	}
	mainWorld(t, s, `document.getElementById('h').style.display = 'none'`)
	refusals := []struct {
		ref       string
		authorize browser.Authorize
		code      errcode.Code
	}{
		{"cBOGUS", allowAll, errcode.UnknownReference},
		{find(t, obs, "Other").Ref, allowAll, errcode.UploadRefused},  // not a file input
		{find(t, obs, "Hidden").Ref, allowAll, errcode.NotActionable}, // live guard
		{find(t, obs, "A").Ref, refuse, errcode.ApprovalRequired},
	}
	for _, r := range refusals {
		_, err := s.Upload(ctx, r.ref, stage, r.authorize)
		wantCode(t, err, r.code)
	}
	if len(staged) != 0 {
		t.Fatalf("refused uploads staged files: %+v", staged)
	}

	upload := func(obs *observation.Observation, name string) *observation.Observation {
		t.Helper()
		res, err := s.Upload(ctx, find(t, obs, name).Ref, stage, allowAll)
		if err != nil {
			t.Fatalf("upload to %s: %v", name, err)
		}
		return res.Observation
	}
	stale := obs
	obs = upload(obs, "A")
	obs = upload(obs, "A")
	upload(obs, "B")
	_, err = s.Upload(ctx, find(t, stale, "A").Ref, stage, allowAll)
	wantCode(t, err, errcode.StaleReference)
	if len(staged) != 3 {
		t.Fatalf("staged %d uploads, want 3", len(staged))
	}
	if staged[0] != staged[1] {
		t.Errorf("two uploads to A: %+v and %+v", staged[0], staged[1])
	}
	if staged[2].Control == staged[0].Control || staged[2].Document != staged[0].Document {
		t.Errorf("A %+v and B %+v of one document", staged[0], staged[2])
	}

	// A stage that refuses sets nothing.
	mainWorld(t, s, `document.querySelector('input').value = ''`)
	obs, _ = s.Observe(ctx, observation.Request{})
	fail := func(context.Context, browser.UploadTarget) ([]string, error) {
		return nil, errcode.New(errcode.UploadRefused, "refused by the test")
	}
	_, err = s.Upload(ctx, find(t, obs, "A").Ref, fail, allowAll)
	wantCode(t, err, errcode.UploadRefused)
	if got := evalMain(t, s, "String(document.querySelector('input').files.length)"); got != "0" {
		t.Fatalf("a refused stage left %s files on the input", got)
	}

	// The same markup in a new document is another document.
	obs, err = s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	upload(obs, "A")
	if staged[3].Document == staged[0].Document {
		t.Errorf("a new document has the old one's name %q", staged[3].Document)
	}
}
