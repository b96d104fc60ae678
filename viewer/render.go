package viewer

import (
	"context"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
)

// Images holds screenshots of a session's calls. The viewer shows each
// one with the call whose Seq it has.
type Images interface {
	// Images lists a session's screenshots.
	Images(ctx context.Context, sessionID string) ([]Image, error)
	// Image reads one screenshot of the session.
	Image(ctx context.Context, sessionID string, id int64) (mediaType string, data []byte, err error)
}

// Image is one screenshot: taken after call Seq, of page revision
// Revision.
type Image struct {
	ID       int64
	Seq      int64
	Revision string
}

// MaxImageBytes bounds one screenshot the viewer serves or embeds.
const MaxImageBytes = 10 << 20

// imageTypes are the media types shown; anything else is not served, so
// that nothing the page runs (SVG, HTML) comes from the viewer's origin.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imageType returns mediaType normalized if it is one the viewer shows.
func imageType(mediaType string) (string, bool) {
	mt, _, err := mime.ParseMediaType(mediaType)
	return mt, err == nil && imageTypes[mt]
}

//go:embed page.html
var pageFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"pathEscape": url.PathEscape,
	"inc":        func(n int) int { return n + 1 },
	"dec":        func(n int) int { return n - 1 },
}).ParseFS(pageFS, "page.html"))

// fileCSP is the policy the self-contained file declares for itself.
const fileCSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

type indexPage struct {
	Title    string
	Sessions []sessionRow
	Capped   bool
	Max      int
}

type sessionRow struct {
	ID, Started, Version, Surface, Outcomes string
	Calls                                   int
}

type sessionHead struct {
	Title   string
	File    bool   // the self-contained file: no links to other pages
	CSP     string // the file's meta policy
	Session store.Session
	Started string
	Grant   string
	Page    int // 1-based; server only
	From    int // the first call shown, 1-based
}

type sessionFoot struct {
	File      bool
	ID        string
	Page      int
	Prev      bool
	More      bool
	Shown     int
	PerPage   int
	Generated string
}

// writeIndex writes the index of the newest sessions.
func writeIndex(ctx context.Context, w io.Writer, st store.Reader) error {
	list, err := st.Sessions(ctx, store.ListOptions{Limit: MaxSessionsListed})
	if err != nil {
		return err
	}
	p := indexPage{Title: "veetbrowser sessions", Capped: len(list) == MaxSessionsListed, Max: MaxSessionsListed}
	for _, s := range list {
		p.Sessions = append(p.Sessions, sessionRow{ID: s.ID, Started: s.StartedAt.UTC().Format(time.RFC3339), Version: s.Version,
			Surface: s.Surface, Calls: s.Calls, Outcomes: outcomes(s.Outcomes)})
	}
	return pages.ExecuteTemplate(w, "index", p)
}

// writeSession writes a session's timeline: on the server, page (1-based)
// of CallsPerPage calls with screenshots by URL; as a file (page 0), every
// call with screenshots embedded.
func writeSession(ctx context.Context, w io.Writer, st store.Reader, id string, page int, images Images) error {
	s, err := st.Session(ctx, id)
	if err != nil {
		return err
	}
	file := page == 0
	imgs, err := listImages(ctx, images, id, file)
	if err != nil {
		return err
	}
	from, limit := 0, 0
	if !file {
		from, limit = (page-1)*CallsPerPage, CallsPerPage
	}
	head := sessionHead{Title: "veetbrowser session " + s.ID, File: file, Session: s, Page: page, From: from + 1,
		Started: s.StartedAt.UTC().Format(time.RFC3339), Grant: string(s.Grant)}
	if file {
		head.CSP = fileCSP
	}
	if err := pages.ExecuteTemplate(w, "head", head); err != nil {
		return err
	}
	shown := 0
	more, err := timeline(ctx, st, id, from, limit, imgs, func(e *entry) error {
		shown++
		return pages.ExecuteTemplate(w, "entry", e)
	})
	if err != nil {
		return err
	}
	return pages.ExecuteTemplate(w, "foot", sessionFoot{File: file, ID: s.ID, Page: page, Prev: page > 1, More: more,
		Shown: shown, PerPage: CallsPerPage, Generated: time.Now().UTC().Format(time.RFC3339)})
}

// listImages maps each call's sequence number to its screenshots: a URL
// path on the server, a data: URI (read now) in the file.
func listImages(ctx context.Context, images Images, id string, embed bool) (map[int64][]imageShown, error) {
	if images == nil {
		return nil, nil
	}
	list, err := images.Images(ctx, id)
	if err != nil {
		return nil, err
	}
	out := map[int64][]imageShown{}
	for _, im := range list {
		src := fmt.Sprintf("/sessions/%s/images/%d", url.PathEscape(id), im.ID)
		if embed {
			mt, data, err := readImage(ctx, images, id, im.ID)
			if err != nil {
				return nil, err
			}
			src = "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(data)
		}
		out[im.Seq] = append(out[im.Seq], imageShown{Src: template.URL(src), Revision: im.Revision})
	}
	return out, nil
}

// readImage reads one screenshot and refuses one the viewer does not show.
func readImage(ctx context.Context, images Images, id string, n int64) (string, []byte, error) {
	mt, data, err := images.Image(ctx, id, n)
	if err != nil {
		return "", nil, err
	}
	mt, ok := imageType(mt)
	if !ok {
		return "", nil, errcode.New(errcode.InvalidArgument, "screenshot %d is not an image the viewer shows (png, jpeg, gif, webp)", n)
	}
	if len(data) > MaxImageBytes {
		return "", nil, errcode.New(errcode.TooLarge, "screenshot %d is over %d bytes", n, MaxImageBytes)
	}
	return mt, data, nil
}

// outcomes is "ok=3 stale_reference=1", ok first, then by name.
func outcomes(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == store.OutcomeOK) != (names[j] == store.OutcomeOK) {
			return names[i] == store.OutcomeOK
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%d", name, counts[name])
	}
	return strings.Join(parts, " ")
}
