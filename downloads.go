package veetbrowser

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/tempdir"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
)

// Download caps (tool version 1.10.0, docs/downloads.md): the defaults of
// SessionOptions.MaxDownloadBytes and MaxDownloadTotal.
const (
	DefaultMaxDownload      = browser.DefaultMaxDownload      // bytes of one file
	DefaultMaxDownloadTotal = browser.DefaultMaxDownloadTotal // bytes of the files one session keeps
)

// downloadOptions are where the downloads of a session of v with opts go:
// its DownloadDir, or a private temp dir that Close removes; nil before
// 1.10.0.
func downloadOptions(v tools.Version, opts SessionOptions) (d *browser.DownloadOptions, err error) {
	if !v.Downloads {
		return nil, nil
	}
	if opts.MaxDownloadBytes < 0 || opts.MaxDownloadTotal < 0 {
		return nil, errcode.New(errcode.InvalidArgument, "the download caps must not be negative")
	}
	d = &browser.DownloadOptions{Dir: opts.DownloadDir, MaxFile: opts.MaxDownloadBytes, MaxTotal: opts.MaxDownloadTotal,
		Allowed: opts.Grant.AllowsOrigin}
	if d.Dir == "" {
		if d.Dir, err = tempdir.Make("veetbrowser-downloads-"); err != nil {
			return nil, errcode.Wrap(errcode.Internal, err, "the download directory could not be made")
		}
		return d, nil
	}
	if d.Dir, err = filepath.Abs(d.Dir); err != nil {
		return nil, errcode.Wrap(errcode.InvalidArgument, err, "the download directory is not a path")
	}
	if fi, err := os.Stat(d.Dir); err != nil || !fi.IsDir() {
		return nil, errcode.New(errcode.InvalidArgument, "the download directory %s is not a directory", errcode.Quote(d.Dir))
	}
	return d, nil
}

// downloadsOf is the directory downloads land in, and whether it is the
// session's own temp dir.
func downloadsOf(opts SessionOptions, d *browser.DownloadOptions) (dir string, own bool) {
	if d == nil {
		return "", false
	}
	return d.Dir, opts.DownloadDir == ""
}

// dropDownloads removes the temp dir downloadOptions made for a session
// that did not open.
func dropDownloads(opts SessionOptions, d *browser.DownloadOptions) {
	if d != nil && opts.DownloadDir == "" {
		os.RemoveAll(d.Dir)
	}
}

// DownloadDir is the directory the session's downloads land in; "" when
// its tool version keeps none.
func (s *Session) DownloadDir() string { return s.downloads }

// DownloadFile is the path of a completed download of the session, by its
// name in a browser_downloads view; "" if the session has no completed
// download of that name. Only names the session listed are ever joined.
func (s *Session) DownloadFile(ctx context.Context, name string) string {
	d, ok := browser.Session(s.page).(browser.Downloader)
	if !ok || s.downloads == "" {
		return ""
	}
	list, err := d.Downloads(ctx)
	if err != nil {
		return ""
	}
	for _, dl := range list.List {
		if dl.State == browser.DownloadCompleted && dl.Name == name {
			return filepath.Join(s.downloads, dl.Name)
		}
	}
	return ""
}

// Downloads lists the session's downloads (browser_downloads, tool version
// 1.10.0), oldest first. It changes nothing.
func (s *Session) Downloads(ctx context.Context) (*Result, error) {
	rec := s.read(tools.Downloads, tools.DownloadsArgs{})
	d, ok := browser.Session(s.page).(browser.Downloader)
	if !s.version.Has(tools.Downloads) || !ok || s.downloads == "" {
		return rec.finish(ctx, nil, errcode.New(errcode.InvalidArgument, "browser_downloads needs tool version 1.10.0 or later; this session has %s", s.version.Name))
	}
	list, err := d.Downloads(ctx)
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	shown := make([]projection.Download, len(list.List))
	for i, dl := range list.List {
		shown[i] = projection.Download{Name: dl.Name, Bytes: dl.Bytes, SHA256: dl.SHA256, State: dl.State, Origin: dl.Origin}
	}
	view, err := projection.ProjectDownloads(shown, list.More, s.version.Name, s.budget)
	if err != nil {
		return rec.finish(ctx, nil, err)
	}
	return rec.finish(ctx, &Result{View: view, Downloads: &list}, nil)
}

func (s *Session) downloadsArgs(ctx context.Context, _ tools.DownloadsArgs) (*Result, error) {
	return s.Downloads(ctx)
}

// downloadOutcome is an action's download as its 1.10.0 view shows it.
func downloadOutcome(d *browser.Download) *projection.Download {
	if d == nil {
		return nil
	}
	return &projection.Download{Name: d.Name, Bytes: d.Bytes, SHA256: d.SHA256, State: d.State}
}

// fillDownloads records a browser_downloads read: the list (names, sizes,
// digests and states; never a file's content), from which its view is
// projected again.
func (c *callRecord) fillDownloads(r *store.Result, res *Result) error {
	raw, err := json.Marshal(res.Downloads)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "the downloads cannot be recorded")
	}
	r.Observation = raw
	return nil
}

// Downloads implements browser.Downloader for the page that outlives its
// browser: a fresh page after a loss lists its own downloads only.
func (p *reopeningPage) Downloads(ctx context.Context) (browser.Downloads, error) {
	return on(ctx, p, func(s browser.Session) (browser.Downloads, error) {
		d, ok := s.(browser.Downloader)
		if !ok {
			return browser.Downloads{}, errcode.New(errcode.InvalidArgument, "this browser keeps no downloads")
		}
		return d.Downloads(ctx)
	})
}
