package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestViewCommandTokenAndListen: view refuses a non-loopback --listen
// without a token; with --token-file it serves on loopback, prints its
// URL, answers 401 without the token and 200 with it, and stops with its
// context.
func TestViewCommandTokenAndListen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "artifacts.db")
	if out, code := runCLI(t, "view", "--store", path, "--listen", "0.0.0.0:0"); code == 0 || !strings.Contains(out, "invalid_argument") {
		t.Fatalf("view on 0.0.0.0 without a token: exit %d: %s", code, out)
	}
	const token = "view-token-0123456789abcdef"
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		var errb strings.Builder
		exit <- run(ctx, []string{"view", "--store", path, "--token-file", tokenFile}, pw, &errb)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("view printed %q (%v)", line, err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line)
	status := func(auth string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	if s := status(""); s != http.StatusUnauthorized {
		t.Errorf("without the token: %d", s)
	}
	if s := status("Bearer " + token); s != http.StatusOK {
		t.Errorf("with the token: %d", s)
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Errorf("view exited %d", code)
	}
}

// TestReplayHTMLWritesTheTimeline: replay --html writes the recorded
// session's timeline as one self-contained file, and nothing else in its
// directory.
func TestReplayHTMLWritesTheTimeline(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "artifacts.db")
	if out, code := runCLI(t, "observe", "--store", path); code != 0 {
		t.Fatalf("observe: exit %d: %s", code, out)
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "timeline.html")
	out, code := runCLI(t, "replay", "--store", path, "--html", html)
	if code != 0 || !strings.Contains(out, "timeline written to") || !strings.Contains(out, "1 views byte-identical") {
		t.Fatalf("replay --html: exit %d: %s", code, out)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`1. browser_navigate: <span class="code">ok</span>`, "byte-identical to the recorded view", "Content-Security-Policy", "</html>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the file lacks %q", want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries", len(entries))
	}
}
