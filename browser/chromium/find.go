package chromium

import (
	"context"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/collect"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
)

// Find looks for the controls and text parts that hold every word of the
// query (docs/reading.md) and publishes what it found as a new revision:
// the matching controls with refs, retained like observed ones, and the
// text matches, whose parts a reading continuation of that revision
// resumes at.
func (s *Session) Find(ctx context.Context, req browser.FindRequest) (*observation.Observation, error) {
	if !s.reading {
		return nil, errcode.New(errcode.InvalidArgument, "find needs tool version 1.6.0 or later")
	}
	if _, err := collect.QueryWords(req.Query); err != nil {
		return nil, err
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.lock.Release(1)
	next := s.revision + 1
	fr := collect.FindRequest{Revision: s.revisionToken(next), Query: req.Query, RealPages: s.realPages}
	if req.Cursor != "" {
		rev, from, err := s.refKeys.ParseFind(req.Cursor)
		if err != nil {
			return nil, err
		}
		if err := s.current(rev); err != nil {
			return nil, err
		}
		if from.Query != observation.QueryHash(req.Query) {
			return nil, errcode.New(errcode.InvalidArgument, "the cursor continues a find of another query; give the same query, or none to start over")
		}
		fr.From = &collect.FindFrom{Revision: s.revisionToken(rev), Controls: from.Controls, Text: from.Text}
		fr.Doc = s.doc
	}
	if s.tab.Dialog() != nil {
		return nil, errcode.New(errcode.NotActionable, "a JavaScript dialog is open; answer it before searching the page")
	}
	marking, err := s.markPointers(ctx)
	if err != nil {
		return nil, err
	}
	defer marking.Released()
	res, err := collectIn(ctx, s.tab.Evaluate, collect.Find(fr), collect.DecodeFind, "the page could not be searched")
	if err != nil {
		return nil, err
	}
	if res.Error != "" {
		return nil, continuationError(res.Error, true)
	}
	obs := s.pageObservation(next, res.Page, res.Controls)
	obs.Find = &observation.Find{Query: req.Query, Matches: res.Matches, Coverage: res.Coverage}
	s.stampTabs(ctx, obs, false)
	s.stampBlocked(obs)
	if err := s.validate(obs); err != nil {
		return nil, err
	}
	s.tabsReported(obs)
	s.revision, s.doc, s.origin, s.cursor, s.frameCursor, s.places, s.textPlaces = next, res.Doc, res.Origin, nil, nil, nil, nil
	nk := s.refKeys.NextKey(next)
	obs.NextKey = &nk
	return obs, nil
}
