// Package chromeflags holds the switches every Chromium this project
// launches runs with, the runtime's and the tests' alike.
package chromeflags

import "github.com/chromedp/chromedp"

// Private makes a launched browser private and quiet: headless, and none of
// the browser's own calls home, so it talks only to the sites its agent
// visits (docs/ARCHITECTURE.md).
func Private() []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.Headless,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
	}
	for _, name := range on {
		opts = append(opts, chromedp.Flag(name, true))
	}
	return append(opts,
		chromedp.Flag("disable-features", "Translate,OptimizationHints,OptimizationGuideModelDownloading,AutofillServerCommunication,MediaRouter,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,SearchEnginePreconnector,PreconnectToSearch"),
		chromedp.Flag("password-store", "basic"),
		chromedp.WindowSize(1280, 900),
	)
}

// on are the switches Private turns on: no calls home, no background work
// that slows or stops a page nobody looks at, no prompts.
var on = []string{
	"disable-background-networking",
	"disable-component-update",
	"disable-sync",
	"disable-quic",
	"disable-domain-reliability",
	"disable-client-side-phishing-detection",
	"disable-default-apps",
	"disable-breakpad",
	"disable-extensions",
	"no-pings",
	"metrics-recording-only",
	"disable-dev-shm-usage",
	"disable-gpu",
	"disable-hang-monitor",
	"disable-prompt-on-repost",
	"disable-background-timer-throttling",
	"disable-renderer-backgrounding",
	"disable-backgrounding-occluded-windows",
	"use-mock-keychain",
	"mute-audio",
}

// Proxy sends every connection of the browser, in every browser context
// that sets no proxy of its own, through the HTTP proxy at addr (host:port
// on loopback), loopback destinations included (NoBypass).
func Proxy(addr string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ProxyServer("http://" + addr),
		chromedp.Flag("proxy-bypass-list", NoBypass),
	}
}

// NoBypass is the proxy bypass list that takes away Chromium's implicit
// bypass of localhost and 127.0.0.0/8: with it, a proxy sees loopback
// connections too.
const NoBypass = "<-loopback>"
