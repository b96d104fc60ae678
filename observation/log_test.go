package observation

import "testing"

// TestSanitizeURL: userinfo and fragment go, secret-looking query values
// become …, everything else of the query stays as sent.
func TestSanitizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:pw@example.com/a?page=2&token=abc#frag":            "https://example.com/a?page=2&token=…",
		"http://x.test/p?api_key=1&Session_ID=2&q=hello%20there&flag": "http://x.test/p?api_key=…&Session_ID=…&q=hello%20there&flag",
		"http://x.test/cb?code=42&state=ok&access%5Ftoken=9":          "http://x.test/cb?code=…&state=ok&access%5Ftoken=…",
		"data:text/plain,CANARY":                                      "data:",
		"http://x.test/plain":                                         "http://x.test/plain",
	} {
		if got := SanitizeURL(in); got != want {
			t.Errorf("SanitizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLogCursor: a cursor reads back as written; anything else is refused.
func TestLogCursor(t *testing.T) {
	c := LogCursor{Document: 12, Seq: 345}
	if got, err := ParseLogCursor(c.String()); err != nil || got != c {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "l", "l1", "l1.", "x1.2", "l0.1", "l1.0", "l-1.2", "l1.2.3", "e1"} {
		if _, err := ParseLogCursor(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
