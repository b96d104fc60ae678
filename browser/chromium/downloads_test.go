package chromium

import (
	"fmt"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"

	"github.com/veetbot/veetbrowser/browser"
)

// TestSanitizeName: whatever name a page suggests, what a download lands
// under is one path element that is not hidden, not "." or "..", has no
// control character or separator, and is at most MaxDownloadName bytes
// with its extension kept, never cut inside a character.
func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("é", 100) + ".pdf"
	for in, want := range map[string]string{
		"../../x":                       "x",
		`..\..\windows\system32.dll`:    "system32.dll",
		"..":                            "download",
		".bashrc":                       "bashrc",
		"a\x01b\x7fc\u0085d.txt":        "abcd.txt",
		" report.pdf. ":                 "report.pdf",
		"C:evil.exe":                    "Cevil.exe",
		"":                              "download",
		"quarterly report (final).xlsx": "quarterly report (final).xlsx",
	} {
		if got := sanitizeName(in); got != want {
			t.Errorf("sanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
	got := sanitizeName(long)
	if len(got) > browser.MaxDownloadName || !strings.HasSuffix(got, ".pdf") || !strings.HasPrefix(got, "é") || strings.ContainsRune(got, '\uFFFD') {
		t.Fatalf("long name: %q (%d bytes)", got, len(got))
	}
	at := strings.Repeat("a", browser.MaxDownloadName)
	if sanitizeName(at) != at || len(sanitizeName(at+"a")) != browser.MaxDownloadName {
		t.Fatalf("a name at the bound is kept, one past it is cut to it")
	}
}

// TestDownloadListBound: a session lists its oldest MaxKeptDownloads
// downloads and counts the rest, at the bound and one past it.
func TestDownloadListBound(t *testing.T) {
	d := &sessionDownloads{active: map[string]*download{}, changed: make(chan struct{})}
	begin := func(i int) {
		d.begin(&cdpbrowser.EventDownloadWillBegin{GUID: fmt.Sprint(i), URL: "http://127.0.0.1:1/f", SuggestedFilename: fmt.Sprintf("f%d", i)})
	}
	for i := range browser.MaxKeptDownloads {
		begin(i)
	}
	list, _ := (&Session{dl: d}).Downloads(t.Context())
	if len(list.List) != browser.MaxKeptDownloads || list.More != 0 || list.List[0].Name != "f0" {
		t.Fatalf("at the bound: %d listed, %d more", len(list.List), list.More)
	}
	begin(browser.MaxKeptDownloads)
	list, _ = (&Session{dl: d}).Downloads(t.Context())
	if len(list.List) != browser.MaxKeptDownloads || list.More != 1 || list.List[browser.MaxKeptDownloads-1].Name != fmt.Sprintf("f%d", browser.MaxKeptDownloads-1) {
		t.Fatalf("one past: %d listed, %d more", len(list.List), list.More)
	}
	if list.List[0].Origin != "http://127.0.0.1:1" || list.List[0].State != browser.DownloadInProgress {
		t.Fatalf("first: %+v", list.List[0])
	}
}
