package tab

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/chromeflags"
	"github.com/veetbot/veetbrowser/policy"
)

// noNames resolves nothing: the verdicts compared are those the
// destination rules reach without a lookup.
type noNames struct{}

func (noNames) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("no lookups in this test")
}

// The in-page WebSocket guard's host rule, run in Chromium on the URLs as
// Chromium's own parser reads them, agrees with the destination rules on
// every host they judge without resolving it (each range at its bounds and
// one past them, IPv4-mapped and non-canonical spellings, the metadata and
// localhost names) and lets every other name through. Only the rule is
// evaluated: no WebSocket is created.
func TestWebSocketGuardHostRule(t *testing.T) {
	t.Parallel()
	urls := []string{
		"ws://169.254.0.0/", "ws://169.254.255.255/", "ws://169.253.255.255/", "ws://169.255.0.0/",
		"ws://[fe80::1]/", "ws://[febf:ffff::1]/", "ws://[fe7f:ffff::1]/", "ws://[fec0::]/",
		"ws://[::ffff:169.254.169.254]/", "ws://[0:0:0:0:0:ffff:a9fe:1]/", "ws://[::a9fe:1]/",
		"ws://100.100.100.200/", "ws://100.100.100.201/", "ws://[fd00:ec2::254]/", "ws://[fd00:ec2::255]/",
		"ws://224.0.0.1/", "ws://224.0.1.0/", "ws://[ff02::1]/", "ws://[ff12::1]/", "ws://[ff05::1]/",
		"ws://127.0.0.1:9/", "ws://127.255.255.255/", "ws://126.255.255.255/", "ws://128.0.0.0/",
		"ws://0x7f.1/", "ws://2130706433/", "ws://[::ffff:7f00:1]/",
		"ws://[::1]/", "ws://[::2]/", "ws://[::]/", "ws://0.0.0.0/", "ws://0.0.0.1/",
		"ws://10.0.0.0/", "ws://10.255.255.255/", "ws://9.255.255.255/", "ws://11.0.0.0/",
		"ws://172.16.0.0/", "ws://172.31.255.255/", "ws://172.15.255.255/", "ws://172.32.0.0/",
		"ws://192.168.0.0/", "ws://192.168.255.255/", "ws://192.169.0.0/",
		"ws://100.64.0.0/", "ws://100.127.255.255/", "ws://100.63.255.255/", "ws://100.128.0.0/",
		"ws://[fc00::]/", "ws://[fdff:ffff::1]/", "ws://[fe00::]/", "ws://[fbff::1]/",
		"ws://8.8.8.8/", "ws://[2001:db8::1]/",
		"ws://metadata.google.internal./", "ws://METADATA/", "ws://instance-data/",
		"ws://localhost:3000/", "ws://app.localhost/", "wss://LocalHost./",
		"ws://notlocalhost/", "ws://localhost.example/", "ws://example.test/", "ws://metadata.example/",
	}
	// Only the guard's own verdict on these names is asked of policy;
	// any other name needs a lookup, which the guard never makes.
	static := map[string]bool{"metadata.google.internal": true, "metadata": true, "instance-data": true, "localhost": true, "app.localhost": true}
	ctx := chromiumPage(t)
	for name, d := range map[string]policy.Destinations{
		"local":  {Resolver: noNames{}},
		"hosted": {Resolver: noNames{}, DenyPrivate: true},
		"open":   {Resolver: noNames{}, AllowLinkLocal: true},
	} {
		rules, err := json.Marshal(rulesOf(d.HostRules()))
		if err != nil {
			t.Fatal(err)
		}
		in, _ := json.Marshal(urls)
		expr := `((refused) => ` + string(in) + `.map((x) => { const u = new URL(x); return [u.href, refused(u)]; }))(` + hostRefusal + `(` + string(rules) + `))`
		res, err := cdp.Call(ctx, chromedp.FromContext(ctx).Target, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: ptr(true)})
		if err != nil || res.ExceptionDetails != nil {
			t.Fatalf("%s: %v %+v", name, err, res.ExceptionDetails)
		}
		var got [][2]any
		if err := json.Unmarshal(res.Result.Value, &got); err != nil || len(got) != len(urls) {
			t.Fatalf("%s: %s (%v)", name, res.Result.Value, err)
		}
		refusedIn := 0
		for i, g := range got {
			href, refused := g[0].(string), g[1].(bool)
			u, err := url.Parse(href)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, href, err)
			}
			host := strings.TrimSuffix(u.Hostname(), ".")
			_, literal := netip.ParseAddr(host)
			want := false
			if literal == nil || static[host] {
				want = d.Check(context.Background(), u) != nil
			}
			if refused != want {
				t.Errorf("%s: %s (read as %s): guard refuses %v, destination rules %v", name, urls[i], href, refused, want)
			}
			if refused {
				refusedIn++
			}
		}
		if (refusedIn == 0) != (name == "open") {
			t.Errorf("%s: the guard refused %d hosts", name, refusedIn)
		}
	}
}

// chromiumPage is a blank page of a headless Chromium of the test's own.
func chromiumPage(t *testing.T) context.Context {
	t.Helper()
	exe, err := browser.FindChromium("")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromeflags.Private(), chromedp.ExecPath(exe), chromedp.UserDataDir(t.TempDir()))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's sandbox refuses root
	}
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(stopAlloc)
	ctx, stop := chromedp.NewContext(alloc)
	t.Cleanup(stop)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(cancel)
	return cctx
}
