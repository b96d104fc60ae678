package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pgtest"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/sidecar"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// envServeChild makes the test binary run `veetbrowser serve` with the
// arguments in the variable (a JSON array): a real serve process that a
// test can signal and kill.
const envServeChild = "VEETBROWSER_TEST_SERVE"

func init() {
	raw := os.Getenv(envServeChild)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, append([]string{"serve"}, args...), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// serveProcess is one running `veetbrowser serve`.
type serveProcess struct {
	cmd  *exec.Cmd
	url  string
	logs *browsertest.Buffer
	done chan struct{}
}

var servingLine = regexp.MustCompile(`veetbrowser: sidecar on (https?://127\.0\.0\.1:\d+)/`)

// startServe starts a serve process on a free loopback port and waits
// until it serves.
func startServe(t *testing.T, args ...string) *serveProcess {
	t.Helper()
	// The pages of the tests are on loopback, which a sidecar refuses by
	// default.
	raw, _ := json.Marshal(append([]string{"--listen", "127.0.0.1:0", "--allow-private"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envServeChild+"="+string(raw))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, logs: &browsertest.Buffer{}, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.logs.Write([]byte(line + "\n"))
			if m := servingLine.FindStringSubmatch(line); m != nil {
				found <- m[1]
			}
		}
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.url = <-found:
	case <-p.done:
		t.Fatalf("serve exited:\n%s", p.logs.String())
	case <-time.After(time.Minute):
		t.Fatalf("serve did not start:\n%s", p.logs.String())
	}
	return p
}

func (p *serveProcess) wait(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not exit:\n%s", p.logs.String())
	}
}

// tenantFiles writes a token file for acme and returns it with the token.
func tenantFiles(t *testing.T) (tokens, token string) {
	t.Helper()
	token, line, err := sidecar.NewToken("acme")
	if err != nil {
		t.Fatal(err)
	}
	tokens = filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return tokens, token
}

// controls returns the names of the controls a hosted session sees.
func controls(t *testing.T, s *hosted.Session, url string) string {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	args, _ := json.Marshal(map[string]string{"url": url})
	res, err := s.Call(ctx, "browser_navigate", args)
	if err != nil {
		t.Fatal(err)
	}
	var v projection.View
	if err := res.DecodeView(&v); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range v.Controls {
		names = append(names, c.Name)
	}
	return strings.Join(names, "; ")
}

func openHosted(t *testing.T, url, token, profile string) *hosted.Session {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	o := hosted.Options{URL: url, Token: token, Profile: profile, TTL: 5 * time.Second}
	if err := hosted.CreateProfile(ctx, o); err != nil {
		t.Fatal(err)
	}
	s, err := hosted.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServeKilledAndRestarted: serve is killed with SIGKILL while a lease
// holds a profile; a new serve on the same data removes the lease once it
// ran out, and the profile kept its cookie and its localStorage. A second
// profile never saw either.
func TestServeKilledAndRestarted(t *testing.T) {
	t.Parallel()
	tokens, token := tenantFiles(t)
	data := t.TempDir()
	page := browsertest.StoragePage(t)

	first := startServe(t, "--data", data, "--tokens", tokens)
	s := openHosted(t, first.url, token, "alice")
	if got := controls(t, s, page+"?set=alice"); got != "cookie session=kept-alice; storage stored" {
		t.Fatalf("profile alice: %q", got)
	}
	other := openHosted(t, first.url, token, "bob")
	if got := controls(t, other, page); got != "cookie none; storage none" {
		t.Fatalf("profile bob sees alice's state: %q", got)
	}
	other.Close(context.Background())

	first.cmd.Process.Signal(syscall.SIGKILL)
	first.wait(t)

	second := startServe(t, "--data", data, "--tokens", tokens)
	ctx := browsertest.Context(t, time.Minute)
	// alice's lease outlived its sidecar in the store until its TTL.
	deadline := time.Now().Add(time.Minute)
	var again *hosted.Session
	for again == nil {
		var err error
		again, err = hosted.Open(ctx, hosted.Options{URL: second.url, Token: token, Profile: "alice", TTL: 5 * time.Second})
		if err != nil {
			if errcode.Of(err) != errcode.LeaseHeld || time.Now().After(deadline) {
				t.Fatalf("leasing alice after the restart: %v\n%s", err, second.logs.String())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	defer again.Close(context.Background())
	if got := controls(t, again, page); got != "cookie session=kept-alice; storage stored" {
		t.Fatalf("profile alice after SIGKILL and restart: %q", got)
	}
	if strings.Contains(first.logs.String()+second.logs.String(), token) {
		t.Fatal("a log holds the token")
	}
}

// TestServeStopsOnSIGTERM: SIGTERM releases the leases at once (not at
// their TTL) and closes the browsers before serve exits.
func TestServeStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	tokens, token := tenantFiles(t)
	data := t.TempDir()
	p := startServe(t, "--data", data, "--tokens", tokens)
	openHosted(t, p.url, token, "alice")
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t)
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, p.logs.String())
	}
	if !strings.Contains(p.logs.String(), `"why":"shutdown"`) {
		t.Fatalf("the lease was not ended on shutdown:\n%s", p.logs.String())
	}
	st, err := storespec.Open(context.Background(), filepath.Join(data, "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := st.AcquireLease(context.Background(), store.Lease{ID: "probe", Tenant: "acme", Profile: "alice", Holder: "test", Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatalf("alice is still leased after SIGTERM: %v", err)
	}
	st.ReleaseLease(context.Background(), l.ID)
}

// TestServeReplicasShareLeases: two serve processes on one PostgreSQL
// database: clients racing for one profile through both get exactly one
// lease, round after round.
func TestServeReplicasShareLeases(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	tokens, token := tenantFiles(t)
	data := t.TempDir()
	a := startServe(t, "--data", data, "--tokens", tokens, "--store", dsn)
	b := startServe(t, "--data", data, "--tokens", tokens, "--store", dsn)
	ctx := browsertest.Context(t, 5*time.Minute)
	if err := hosted.CreateProfile(ctx, hosted.Options{URL: a.url, Token: token, Profile: "shop"}); err != nil {
		t.Fatal(err)
	}
	for round := range 10 {
		var wg sync.WaitGroup
		sessions := make([]*hosted.Session, 4)
		errs := make([]error, 4)
		for i := range sessions {
			url := a.url
			if i%2 == 1 {
				url = b.url
			}
			wg.Go(func() {
				sessions[i], errs[i] = hosted.Open(ctx, hosted.Options{URL: url, Token: token, Profile: "shop"})
			})
		}
		wg.Wait()
		won := 0
		for i, s := range sessions {
			if errs[i] == nil {
				won++
				s.Close(ctx)
			} else if errcode.Of(errs[i]) != errcode.LeaseHeld {
				t.Fatalf("round %d: %v", round, errs[i])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d leases of one profile", round, won)
		}
	}
	if strings.Contains(a.logs.String()+b.logs.String(), token) {
		t.Fatal("a log holds the token")
	}
}

// TestServeTLS: with --tls-cert and --tls-key the sidecar speaks only
// HTTPS; a client that trusts the certificate leases and drives a page.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	tokens, token := tenantFiles(t)
	certFile, keyFile, pool := selfSigned(t)
	p := startServe(t, "--data", t.TempDir(), "--tokens", tokens, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(p.url, "https://") {
		t.Fatalf("serving on %s", p.url)
	}
	ctx := browsertest.Context(t, time.Minute)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	o := hosted.Options{URL: p.url, Token: token, Profile: "alice", HTTPClient: client}
	if err := hosted.CreateProfile(ctx, o); err != nil {
		t.Fatal(err)
	}
	s, err := hosted.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if got := controls(t, s, browsertest.Serve(t, `<button>Over TLS</button>`)); got != "Over TLS" {
		t.Fatalf("controls: %q", got)
	}
	// Plain HTTP on the same port is not served.
	if resp, err := http.Get("http://" + strings.TrimPrefix(p.url, "https://") + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("plain HTTP was served")
		}
	}
}

// selfSigned writes a certificate and key for 127.0.0.1 and returns them
// with a pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
