package browsertest

import (
	"fmt"
	"net/http"
	"testing"
)

// StoragePage serves a page that sets a cookie (session=kept-NAME) and a
// localStorage item when loaded with ?set=NAME, and always shows what it
// can see of both as two buttons: "cookie …" and "storage …".
func StoragePage(tb testing.TB) string {
	return ServeHandler(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Query().Has("set") {
			w.Header().Set("Set-Cookie", "session=kept-"+r.URL.Query().Get("set")+"; Max-Age=86400; Path=/")
		}
		fmt.Fprint(w, `<script>
if (new URLSearchParams(location.search).has("set")) localStorage.setItem("draft", "stored");
addEventListener("DOMContentLoaded", () => {
  document.getElementById("c").textContent = "cookie " + (document.cookie || "none");
  document.getElementById("s").textContent = "storage " + (localStorage.getItem("draft") || "none");
});
</script><button id="c"></button><button id="s"></button>`)
	}))
}
