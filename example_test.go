package veetbrowser_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/demo"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
)

// An agent's loop on the built-in demo site: launch a browser, open a
// session, navigate, follow the model view's next until the composer and
// its Publish button are in view, type a post, and publish it with the
// user's approval.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	site := &demo.Site{}
	url, stop, err := demo.Serve(site) // on 127.0.0.1
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	p, err := chromium.Launch(ctx, chromium.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx) // the runtime does not own the browser
	// A 1 KiB budget: the demo's Publish button lies beyond the first view.
	// Options.Store is nil, so calls are recorded in the default store.
	rt, err := veetbrowser.New(p, veetbrowser.Options{Budget: 1024})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s, err := rt.NewSession(ctx, veetbrowser.SessionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx)

	res, err := s.Navigate(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	view := decode(res)
	fmt.Println("title:", view.Title)
	fmt.Println("more beyond the first view:", view.Next != nil)

	// A reference is good in the newest observation only: find each
	// control from the last result, continuing with next until it shows.
	res, composer := seek(ctx, s, res, "textbox", "What is happening?")
	res, err = s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Type, Ref: composer, Text: "Hello from Go"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("typed:", res.Action.Dispatched)

	res, publish := seek(ctx, s, res, "button", "Publish")
	// Publishing is consequential: without an approval it is refused.
	_, err = s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: publish})
	fmt.Println("without approval:", errcode.Of(err))

	// The user (never the model) approves exactly this: the Publish button
	// of this origin, submitting its form; once.
	s.Approve(policy.Facts{Origin: res.Observation.Origin, Role: "button", Name: "Publish", Submit: true})
	res, err = s.Act(ctx, veetbrowser.Action{Kind: veetbrowser.Click, Ref: publish})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("navigated:", res.Action.NavigationDone)
	fmt.Println("posts the site received:", len(site.Published()))
	// Output:
	// title: Veet Social — Home
	// more beyond the first view: true
	// typed: true
	// without approval: approval_required
	// navigated: true
	// posts the site received: 1
}

// decode reads the model view of res.
func decode(res *veetbrowser.Result) projection.View {
	var view projection.View
	if err := res.DecodeView(&view); err != nil {
		log.Fatal(err)
	}
	return view
}

// seek returns the newest result and the ref of the control with this role
// and name, observing on through the page's next until it is in view.
func seek(ctx context.Context, s *veetbrowser.Session, res *veetbrowser.Result, role, name string) (*veetbrowser.Result, string) {
	for {
		view := decode(res)
		for _, c := range view.Controls {
			if c.Role == role && c.Name == name {
				return res, c.Ref
			}
		}
		if view.Next == nil {
			log.Fatalf("no %s %q on the page", role, name)
		}
		// next holds either after or cursor; pass both as they are.
		var err error
		res, err = s.Observe(ctx, veetbrowser.ObserveOptions{After: view.Next.After, Cursor: view.Next.Cursor})
		if err != nil {
			log.Fatal(err)
		}
	}
}
