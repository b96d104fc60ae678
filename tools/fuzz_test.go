package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

// argumentSeeds are tool arguments as agents send them (from the tests
// and the documentation), and malformed ones.
var argumentSeeds = []string{
	``, `{}`, `null`, `[]`, `"x"`, `1`, `true`, `{"a":1}`, `{} {}`, `{"url":1}`, `{"kind":1}`, `{`,
	`{"url":"https://example.com/"}`, `{"url":"http://127.0.0.1:8080/form?q=1#top"}`, `{"history":"back"}`,
	`{"history":"reload"}`, `{"url":"https://example.com/","history":"forward"}`, `{"history":"sideways"}`,
	`{"after":"e1"}`, `{"cursor":"k1"}`, `{"after":""}`, `{"after":"e1","cursor":"k1"}`,
	`{"element_offset":3,"text_offset":120}`, `{"element_offset":-1}`, `{"text_offset":1048577}`,
	`{"kind":"click","ref":"e1"}`, `{"kind":"type","ref":"e2","text":"Hello, 世界 👋","submit":true}`,
	`{"kind":"press","ref":"e1","key":"Control+A"}`, `{"kind":"select","ref":"e3","option":"Deutsch"}`,
	`{"kind":"check","ref":"e4"}`, `{"kind":"uncheck","ref":"e4"}`, `{"kind":"dialog","accept":true,"text":"yes"}`,
	`{"kind":"hover","ref":"e1"}`, `{"kind":"scroll","viewports":-10}`, `{"kind":"scroll","viewports":10.5}`,
	`{"kind":"scroll","ref":"e9","viewports":-0}`, `{"kind":"drag","ref":"e1","to":"e2"}`, `{"kind":"drag","ref":"e1"}`,
	`{"kind":"click","ref":"e1","to":"e2"}`, `{"KIND":"click","Ref":"e1"}`, `{"kind":"click","kind":"type","ref":"e1"}`,
	`{"ref":"e5","paths":["report.pdf","img/photo.jpg"]}`, `{"ref":"e5","paths":[]}`, `{"ref":"e5","paths":"a"}`,
	`{"query":"opening hours"}`, `{"query":"opening hours","cursor":"f1"}`, `{"query":"x","cursor":""}`,
	`{"text":"done","timeout_ms":30000}`, `{"ref_gone":"e1","timeout_ms":5}`, `{"network_idle":true,"timeout_ms":5}`,
	`{"text":"done","timeout_ms":18446744074710}`, `{"text":"done","timeout_ms":1e3}`, `{"timeout_ms":100}`,
	`{"ref":"e1"}`, `{"full_page":true}`, `{"ref":"e1","full_page":true}`,
	`{"action":"list"}`, `{"action":"select","tab":"t2"}`, `{"action":"close","tab":"t2"}`, `{"action":"open"}`,
	`{"text":"\ud800 \u0000 \n"}`, "{\"text\":\"\xff\xfe\"}", `{"` + strings.Repeat(`\n`, 100) + `":1}`,
}

// parsers are every tool's argument parser as version v defines it; each
// returns what it parsed.
func parsers(v Version) map[string]func(json.RawMessage) (any, error) {
	return map[string]func(json.RawMessage) (any, error){
		Navigate: func(raw json.RawMessage) (any, error) { return ParseNavigate(v, raw) },
		Observe:  func(raw json.RawMessage) (any, error) { return ParseObserve(v, raw) },
		Act:      func(raw json.RawMessage) (any, error) { return ParseAct(v, raw) },
		Upload:   func(raw json.RawMessage) (any, error) { return ParseUpload(raw) },
		Find:     func(raw json.RawMessage) (any, error) { return ParseFind(raw) },
		Wait: func(raw json.RawMessage) (any, error) {
			_, args, err := ParseWait(raw)
			return args, err
		},
		Screenshot: func(raw json.RawMessage) (any, error) { return ParseScreenshot(raw) },
		Tabs: func(raw json.RawMessage) (any, error) {
			req, err := ParseTabs(raw)
			return TabsArgs{Action: req.Action, Tab: req.Tab}, err
		},
	}
}

// FuzzParseArguments feeds every tool's parser, in every version, what a
// model might send: a parser never panics; it refuses with
// invalid_argument (a continuation in a version without one:
// expansion_unsupported) and a public message on one line within its
// bound, or
// returns arguments whose encoding it parses again to the same.
func FuzzParseArguments(f *testing.F) {
	for i, raw := range argumentSeeds {
		f.Add([]byte(raw), uint8(i))
	}
	f.Fuzz(func(t *testing.T, raw []byte, version uint8) {
		v := Versions[int(version)%len(Versions)]
		for tool, parse := range parsers(v) {
			args, err := parse(raw)
			if err != nil {
				code := errcode.Of(err)
				if code != errcode.InvalidArgument && !(tool == Observe && code == errcode.ExpansionUnsupported && !v.Continuation) {
					t.Fatalf("%s %s(%q): %v, want invalid_argument", v.Name, tool, raw, err)
				}
				if !publicMessageBounded(err) {
					t.Fatalf("%s %s(%q): %.2000q, a message over %d bytes or lines", v.Name, tool, raw, err, errcode.MaxMessageBytes)
				}
				continue
			}
			again, err := json.Marshal(args)
			if err != nil {
				t.Fatalf("%s %s(%q): %+v does not encode: %v", v.Name, tool, raw, args, err)
			}
			reparsed, err := parse(again)
			if err != nil || !reflect.DeepEqual(args, reparsed) {
				t.Fatalf("%s %s(%q) = %+v, encoded %s, parses again to %+v, %v", v.Name, tool, raw, args, again, reparsed, err)
			}
		}
	})
}

// publicMessageBounded reports whether err's public message is one line
// within errcode.MaxMessageBytes: what a caller sent comes back only cut
// (errcode.Quote).
func publicMessageBounded(err error) bool {
	_, msg := errcode.Public(err)
	return len(msg) <= errcode.MaxMessageBytes && !strings.ContainsAny(msg, "\r\n")
}

// FuzzLookup: a version name from a caller is a registered version or an
// invalid_argument whose message quotes at most a cut prefix of it.
func FuzzLookup(f *testing.F) {
	for _, name := range []string{"", "1.0.0", "1.4.0", "1.8.0", "2.0.0", "1.8", " 1.8.0", strings.Repeat("9", 2000), "\n"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		v, err := Lookup(name)
		if err != nil {
			if errcode.Of(err) != errcode.InvalidArgument || !publicMessageBounded(err) {
				t.Fatalf("Lookup(%q): %v", name, err)
			}
			return
		}
		if name != "" && v.Name != name || name == "" && v.Name != Newest().Name {
			t.Fatalf("Lookup(%q) = %s", name, v.Name)
		}
	})
}
