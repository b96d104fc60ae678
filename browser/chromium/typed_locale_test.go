package chromium

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// fahrplan is a German rail timetable search (html lang=de), with a
// departure time to the second (step=1), a Japanese-language return date,
// a British one and a meeting time of whole minutes.
const fahrplan = `<!doctype html><html lang="de"><head><title>Fahrplanauskunft · Bahn</title>
<style>body{font:14px sans-serif} label{display:block;margin:6px 0}</style></head><body>
<h1>Verbindung suchen</h1>
<form onsubmit="return false">
  <label>Reisedatum <input id="date" type="date"></label>
  <label>Abfahrt <input id="dep" type="time" step="1"></label>
  <label>Ankunft spätestens <input id="arr" type="datetime-local" step="1"></label>
  <label lang="ja">帰りの日付 <input id="ret" type="date"></label>
  <label lang="en-GB">Return (UK office) <input id="uk" type="date"></label>
  <label>Treffpunkt <input id="meet" type="time"></label>
  <button>Suchen</button>
</form>
<script>
  window.seen = {};
  for (const el of document.querySelectorAll('input')) el.addEventListener('change', () => { window.seen[el.id] = el.value; });
</script></body></html>`

// TestTypedTimesWithSecondsAndLocales (fails before: a time with seconds
// was invalid_argument, and the segments were ordered by
// navigator.language): the page's language is German (Accept-Language
// de-DE, so navigator.language and Intl say day.month.year) while the
// browser lays its fields out in its own locale (en-US, the one the test
// browser has); the runtime reads the order from the field itself. A date
// takes its ISO text, a time and a datetime-local with step=1 take their
// seconds, dates in a Japanese and a British part of the page take
// theirs, each as the page's change handler sees it; a time without
// seconds fills a seconds field with zeros; seconds for a field of whole
// minutes are not_actionable, untyped.
func TestTypedTimesWithSecondsAndLocales(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, fahrplan)
	s, _ := openReal(t, url, true)
	ua := evalMain(t, s, "navigator.userAgent")
	if _, err := cdp.Call(ctx, s.tab.Target(), emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: "de-DE"}); err != nil {
		t.Fatal(err)
	}
	obs, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, "navigator.language + ' ' + new Intl.DateTimeFormat(navigator.language).format(new Date(2012, 8, 10))"); got != "de-DE 10.9.2012" {
		t.Fatalf("the page's locale is %q", got)
	}
	for _, c := range []struct{ name, id, text, want string }{
		{"Reisedatum", "date", "2012-09-10", "2012-09-10"},
		{"Abfahrt", "dep", "14:05:30", "14:05:30"},
		{"Abfahrt", "dep", "07:45", "07:45:00"}, // seconds typed as 00
		{"Ankunft spätestens", "arr", "2012-09-10T23:59:58", "2012-09-10T23:59:58"},
		{"帰りの日付", "ret", "2013-01-31", "2013-01-31"},
		{"Return (UK office)", "uk", "2013-02-01", "2013-02-01"},
		{"Treffpunkt", "meet", "09:15", "09:15"},
	} {
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, c.name).Ref, Text: c.text}, allowAll)
		if err != nil {
			t.Fatalf("typing %q into %s: %v", c.text, c.name, err)
		}
		obs = res.Observation
		if got := evalMain(t, s, `document.getElementById('`+c.id+`').value + ' ' + (window.seen['`+c.id+`'] || '')`); got != c.want+" "+c.want {
			t.Fatalf("%s: the field and the page's handler hold %q after typing %q, want %q", c.name, got, c.text, c.want)
		}
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Treffpunkt").Ref, Text: "10:30:15"}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	if !strings.Contains(err.Error(), "no seconds") {
		t.Errorf("seconds into a field of minutes: %v", err)
	}
	if got := evalMain(t, s, `meet.value`); got != "09:15" {
		t.Errorf("the refused time changed the field to %q", got)
	}
	for _, text := range []string{"14:05:60", "14:05:3", "14:05:30.5"} {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Abfahrt").Ref, Text: text}, allowAll)
		wantCode(t, err, errcode.InvalidArgument)
	}
}
