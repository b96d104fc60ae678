package veetbrowser_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/store/storespec"
	"github.com/veetbot/veetbrowser/tools"
)

// BenchmarkFillAndSubmitForm fills the checkout's five fields (text,
// email, select, checkbox, date) and submits it, as a model would: with
// 1.8.0 a navigate, one call per field and one for the submit; with 1.9.0
// a navigate and one call with six steps. It reports per fill the calls
// and the bytes of all their views, and logs a value the server did not
// get (1.8.0 types no date: docs/realpages.md).
func BenchmarkFillAndSubmitForm(b *testing.B) {
	fields := []string{`{"kind":"type","ref":{ref:Full name},"text":"Ada Lovelace"}`, `{"kind":"type","ref":{ref:Email},"text":"ada@example.test"}`,
		`{"kind":"select","ref":{ref:Country},"option":"Germany"}`, `{"kind":"check","ref":{ref:Gift wrap}}`,
		`{"kind":"type","ref":{ref:Delivery date},"text":"2026-12-24"}`, `{"kind":"click","ref":{ref:Place order}}`}
	const want = "placed:country=Germany&date=2026-12-24&email=ada@example.test&gift=on&name=Ada Lovelace"
	for _, version := range []string{"1.8.0", "1.9.0"} {
		{
			// At 8 KiB: the first view holds every field of the form.
			budget := 8192
			b.Run(version, func(b *testing.B) {
				site := &shopSite{}
				base := browsertest.ServeHandler(b, site)
				st, err := storespec.Open(b.Context(), filepath.Join(b.TempDir(), "artifacts.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				_, s := grantedSession(b, st, base, veetbrowser.SessionOptions{Surface: "test", Version: version, Budget: budget,
					Approver: &stepApprover{answers: []bool{true, true, true, true, true, true, true, true}}})
				ctx := browsertest.Context(b, 30*time.Minute)
				var calls, bytes int
				var got []string
				call := func(tool, args string) map[string]string {
					res, err := s.Call(ctx, tool, json.RawMessage(args))
					if err != nil {
						b.Fatalf("%s %s: %v", tool, args, err)
					}
					calls++
					bytes += len(res.View)
					var v struct{ Controls []struct{ Name, Ref string } }
					json.Unmarshal(res.View, &v)
					refs := map[string]string{}
					for _, c := range v.Controls {
						refs[c.Name] = c.Ref
					}
					return refs
				}
				resolve := func(step string, refs map[string]string) string {
					a, rest, _ := strings.Cut(step, "{ref:")
					name, rest, _ := strings.Cut(rest, "}")
					return a + fmt.Sprintf("%q", refs[name]) + rest
				}
				for b.Loop() {
					calls, bytes = 0, 0
					site.seen()
					refs := call(tools.Navigate, fmt.Sprintf(`{"url":%q}`, base))
					if version == "1.8.0" {
						for _, f := range fields {
							refs = call(tools.Act, resolve(f, refs))
						}
					} else {
						steps := make([]string, len(fields))
						for i, f := range fields {
							steps[i] = resolve(f, refs)
						}
						call(tools.Act, `{"steps":[`+strings.Join(steps, ",")+`]}`)
					}
					got = site.seen()
				}
				if len(got) == 0 || got[len(got)-1] != want {
					b.Logf("%s: the server got %q", version, got[len(got)-1])
				}
				b.ReportMetric(float64(calls), "calls")
				b.ReportMetric(float64(bytes), "view-bytes")
			})
		}
	}
}
