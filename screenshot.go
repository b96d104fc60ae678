package veetbrowser

import (
	"context"
	"encoding/json"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// Image is a screenshot a result carries (browser_screenshot): the MCP
// server returns it as image content.
type Image struct {
	MediaType string
	Data      []byte
}

// ShotSummary is browser_screenshot's view: what the image is and what was
// painted over, never a value.
type ShotSummary struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"` // the newest revision when it was taken
	Trust    string `json:"trust"`
	Shot     struct {
		MediaType   string  `json:"media_type"`
		Width       int     `json:"width"`
		Height      int     `json:"height"`
		Bytes       int     `json:"bytes"`
		Scale       float64 `json:"scale"`
		Quality     int     `json:"quality"`
		Masked      int     `json:"masked"`
		MaskedAll   bool    `json:"masked_all,omitempty"`
		FullPageCut bool    `json:"full_page_cut,omitempty"`
	} `json:"screenshot"`
}

// Screenshot takes a masked screenshot of the active tab (tool version
// 1.8.0 and later): the viewport, one control, or the full page. It changes
// nothing; the image is stored with the call's record.
func (s *Session) Screenshot(ctx context.Context, opts ScreenshotOptions) (*Result, error) {
	rec := s.read(tools.Screenshot, tools.ScreenshotArgs{Ref: opts.Ref, FullPage: opts.FullPage})
	if !s.version.Has(tools.Screenshot) {
		return rec.finish(ctx, nil, errcode.New(errcode.InvalidArgument, "browser_screenshot needs tool version 1.8.0 or later; this session has %s", s.version.Name))
	}
	shot, err := s.page.Screenshot(ctx, browser.ScreenshotRequest{Ref: s.carry(opts.Ref), FullPage: opts.FullPage, Unmasked: s.shots.unmasked})
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	var sum ShotSummary
	sum.Version, sum.Revision, sum.Trust = s.version.Name, shot.Revision, "external_untrusted"
	sh := &sum.Shot
	sh.MediaType, sh.Width, sh.Height, sh.Bytes, sh.Scale, sh.Quality = shot.MediaType, shot.Width, shot.Height, len(shot.Data), shot.Scale, shot.Quality
	sh.Masked, sh.MaskedAll, sh.FullPageCut = shot.MaskedCount, shot.MaskedAll, shot.FullPageCut
	view, err := json.Marshal(sum)
	if err != nil {
		return rec.finish(ctx, nil, errcode.Wrap(errcode.Internal, err, "the screenshot cannot be described"))
	}
	rec.shot = shot
	return rec.finish(ctx, &Result{View: view, Image: &Image{MediaType: shot.MediaType, Data: shot.Data}}, nil)
}

// shotAfterAction takes the screenshot an action's record keeps when the
// runtime asks for one after each action; a capture that fails leaves the
// record without one (the action itself succeeded).
func (s *Session) shotAfterAction(ctx context.Context, rec *callRecord) {
	if !s.shots.afterActions || !s.version.Interactions {
		return
	}
	if shot, err := s.page.Screenshot(ctx, browser.ScreenshotRequest{Unmasked: s.shots.unmasked}); err == nil {
		rec.shot = shot
	}
}

// storeShot stores shot with the call seq.
func (s *Session) storeShot(ctx context.Context, seq int64, shot *browser.Screenshot) error {
	meta, err := json.Marshal(struct {
		Width       int  `json:"width"`
		Height      int  `json:"height"`
		Masked      int  `json:"masked"`
		MaskedAll   bool `json:"masked_all,omitempty"`
		Unmasked    bool `json:"unmasked,omitempty"`
		FullPageCut bool `json:"full_page_cut,omitempty"`
	}{shot.Width, shot.Height, shot.MaskedCount, shot.MaskedAll, s.shots.unmasked, shot.FullPageCut})
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "the screenshot cannot be recorded")
	}
	_, err = s.rec.store.PutBlob(ctx, store.Blob{SessionID: s.rec.id, Seq: seq, Kind: "screenshot", Revision: shot.Revision,
		MediaType: shot.MediaType, Data: shot.Data, Meta: meta})
	return err
}

// Screencast streams masked JPEG frames of the active tab to each, for a
// person watching the session (the control room), until ctx ends or the
// tab goes: at most five a second, always masked, never recorded and never
// shown to the model. It runs while a person holds the page too.
func (s *Session) Screencast(ctx context.Context, each func(jpeg []byte)) error {
	return s.page.Screencast(ctx, each)
}

// Picture is a masked JPEG of the active tab for a person watching the
// session (the control room): always masked, whatever the runtime's
// screenshot options, never recorded and never shown to the model.
func (s *Session) Picture(ctx context.Context) ([]byte, error) {
	shot, err := s.page.picture(ctx) // also while a person holds the page
	if err != nil {
		return nil, err
	}
	return shot.Data, nil
}
