package pages

import (
	"fmt"
	"io"
	"net/http"
)

// dashboardPage is an account dashboard that logs three messages, throws
// once, fetches four URLs of its API (one a 404) and then tries to leave
// for an origin outside the task's grant, which the navigation check
// blocks. Its session cookie, an Authorization header, a request body and
// a token in a query are logCanaries.
const dashboardPage = `<!doctype html><html><head><title>Acme · Dashboard</title><link rel="icon" href="data:,">
<style>body{font-family:sans-serif;margin:0}header{background:#224;color:#fff;padding:8px}
nav a{color:#fff;margin-right:12px}main{display:flex}aside{width:180px;padding:8px;background:#eee}
section{flex:1;padding:12px}footer{padding:8px;color:#666;border-top:1px solid #ccc}</style></head>
<body><header><strong>Acme</strong><nav><a href="/">Home</a><a href="/billing">Billing</a><a href="/team">Team</a></nav></header>
<main><aside><h3>Projects</h3><ul><li>Website</li><li>Mobile app</li></ul></aside>
<section><h1>Your profile</h1><form onsubmit="return false"><label>Display name <input name="name" value="Ada"></label>
<button>Save profile</button></form><div id="status">Loading…</div>
<article><h2>Activity</h2><p>Three deploys this week.</p></article></section></main>
<footer>© Acme Inc · <a href="/privacy">Privacy</a></footer>
<script>
(async () => {
  console.log('app started', {build: 42, env: 'test'});
  console.warn('deprecated option:', 'legacyMode');
  await fetch('/api/user');
  const missing = await fetch('/api/missing');
  await fetch('/api/feed?page=2&token=CANARY-TOKEN');
  await fetch('/api/save', {method: 'POST', headers: {'Authorization': 'Bearer CANARY-AUTH', 'Content-Type': 'application/json'},
    body: JSON.stringify({note: 'CANARY-BODY'})});
  console.error('profile failed to load:', missing.status);
  setTimeout(() => { throw new Error('render crashed at widget 3'); }, 0);
  setTimeout(() => { location.href = location.origin.replace('127.0.0.1', '127.0.0.2') + '/elsewhere'; }, 1000);
  document.getElementById('status').textContent = 'Ready';
})();
</script></body></html>`

// DashboardCanaries are the secrets Dashboard sends: no log view, record
// or log may hold one.
var DashboardCanaries = []string{"CANARY-TOKEN", "CANARY-AUTH", "CANARY-BODY", "CANARY-COOKIE"}

// Dashboard serves dashboardPage at / with its session cookie, and its
// API: /api/missing is a 404, every other path answers {"ok":true}.
func Dashboard() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "CANARY-COOKIE", Path: "/"})
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, dashboardPage)
		case "/api/missing":
			http.Error(w, `{"error":"no such profile"}`, http.StatusNotFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok":true}`)
		}
	})
}
