package sidecar

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/sidecar/api"
)

// roomClient logs in to the control room of token's tenant with a fresh
// one-time link and returns the client and the room's path.
func (f *fixture) roomClient(t *testing.T, token string) (*http.Client, string) {
	t.Helper()
	r := f.json(t, token, http.MethodPost, "/v1/control/login", nil)
	want(t, r, http.StatusOK, "")
	var out struct{ Login string }
	r.decode(t, &out)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.Get(f.url + out.Login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("login %s: %s", out.Login, res.Status)
	}
	// The link is spent.
	if res, err := http.Get(f.url + out.Login); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a second use of the link: %v %v", res.Status, err)
	}
	return c, out.Login[:strings.Index(out.Login, "login?")]
}

// roomState reads a room's state as its page does.
func roomState(t *testing.T, c *http.Client, u string) (int, []string) {
	t.Helper()
	res, err := c.Get(u + "state")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st struct {
		Pages []struct{ Label, View string }
	}
	b, _ := io.ReadAll(res.Body)
	json.Unmarshal(b, &st)
	var labels []string
	for _, p := range st.Pages {
		labels = append(labels, p.Label+":"+p.View)
	}
	return res.StatusCode, labels
}

// TestEachTenantSeesOnlyItsOwnRoom: two tenants, each with a live lease;
// each tenant's token buys a login to its own room only, which shows its
// own lease and the model's last view of it, never the other's; the other
// tenant's cookie and no cookie get nothing; the room's page and script
// are served under the tenant's path; a lease that ends leaves the room.
func TestEachTenantSeesOnlyItsOwnRoom(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	f.profile(t, f.acme, "shop")
	f.profile(t, f.globex, "mail")
	la := f.lease(t, f.acme, api.LeaseRequest{Profile: "shop"})
	lg := f.lease(t, f.globex, api.LeaseRequest{Profile: "mail"})
	for _, l := range []struct{ token, id, title string }{{f.acme, la.ID, "Acme shop"}, {f.globex, lg.ID, "Globex mail"}} {
		url := serveTitled(t, l.title)
		want(t, f.json(t, l.token, http.MethodPost, "/v1/leases/"+l.id+"/navigate", map[string]string{"url": url}), http.StatusOK, "")
	}
	acme, acmeRoom := f.roomClient(t, f.acme)
	globex, globexRoom := f.roomClient(t, f.globex)
	if acmeRoom != "/control/acme/" || globexRoom != "/control/globex/" {
		t.Fatalf("rooms at %s and %s", acmeRoom, globexRoom)
	}
	for _, tc := range []struct {
		c          *http.Client
		room       string
		mine, them string
	}{{acme, acmeRoom, "Acme shop", "Globex mail"}, {globex, globexRoom, "Globex mail", "Acme shop"}} {
		code, pages := roomState(t, tc.c, f.url+tc.room)
		if code != http.StatusOK || len(pages) != 1 || !strings.Contains(pages[0], tc.mine) || strings.Contains(strings.Join(pages, " "), tc.them) {
			t.Errorf("%s: %d %q", tc.room, code, pages)
		}
		for _, path := range []string{"", "room.js"} {
			if res, err := tc.c.Get(f.url + tc.room + path); err != nil || res.StatusCode != http.StatusOK {
				t.Errorf("%s%s: %v %v", tc.room, path, res.Status, err)
			}
		}
	}
	if code, pages := roomState(t, acme, f.url+globexRoom); code != http.StatusUnauthorized || len(pages) != 0 {
		t.Errorf("acme's cookie in globex's room: %d %q", code, pages)
	}
	if code, _ := roomState(t, http.DefaultClient, f.url+acmeRoom); code != http.StatusUnauthorized {
		t.Errorf("no cookie: %d", code)
	}
	if res, err := http.Get(f.url + "/control/initech/state"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("a room no tenant asked for: %v %v", res.Status, err)
	}
	want(t, f.json(t, f.acme, http.MethodDelete, "/v1/leases/"+la.ID, nil), http.StatusNoContent, "")
	if _, pages := roomState(t, acme, f.url+acmeRoom); len(pages) != 0 {
		t.Errorf("a released lease is still in the room: %q", pages)
	}
}

// serveTitled serves a small page of a site named title: a menu, a heading
// and a footer.
func serveTitled(t *testing.T, title string) string {
	return browsertest.Serve(t, `<!doctype html><title>`+title+`</title><nav aria-label="Menu"><a href="/a">Home</a></nav>
<main><h1>`+title+`</h1><p>Welcome.</p></main><footer>© `+title+`</footer>`)
}
