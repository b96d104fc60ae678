// Package pgtest gives tests a fresh PostgreSQL database: on the server that
// VEETBROWSER_TEST_POSTGRES names, or on a private cluster that the test
// binary starts on first use (initdb into a temporary directory, listening
// on 127.0.0.1 only, on a free port, its sockets in that directory) and
// stops in Main. It is for tests only.
//
// Without either, a test skips, except when CI is set: there it fails,
// so that a CI machine without PostgreSQL never passes silently.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names a server to use instead of a private cluster; its user must
// be allowed to create databases.
const EnvDSN = "VEETBROWSER_TEST_POSTGRES"

// startTimeout bounds initdb and the server's start.
const startTimeout = 2 * time.Minute

var (
	once    sync.Once
	server  string // DSN of the maintenance database
	cluster *privateCluster
	setup   error
	dbs     atomic.Int64
)

// Main runs the tests, then stops the private cluster if one was started.
func Main(m *testing.M) {
	code := m.Run()
	if err := Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: stopping the cluster:", err)
		code = 1
	}
	os.Exit(code)
}

// Stop stops the private cluster if one was started: for a test main that
// runs the tests itself (Main does it).
func Stop() error {
	if cluster == nil {
		return nil
	}
	return cluster.stop()
}

// Database creates an empty database for tb, dropped when tb ends, and
// returns its DSN.
func Database(tb testing.TB) string {
	tb.Helper()
	admin := Server(tb)
	name := fmt.Sprintf("veet_test_%d_%d", os.Getpid(), dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := execAdmin(ctx, admin, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("pgtest: creating a database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := execAdmin(ctx, admin, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("pgtest: dropping a database: %v", err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Server returns the DSN of the server's maintenance database, starting
// the private cluster on first use.
func Server(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		if dsn := os.Getenv(EnvDSN); dsn != "" {
			// Tests send traffic to loopback only.
			if setup = loopbackDSN(dsn); setup == nil {
				server = dsn
			}
			return
		}
		cluster, setup = start()
		if setup == nil {
			server = cluster.dsn
		}
	})
	if setup != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("pgtest: no PostgreSQL for this test (set %s or install the postgresql package): %v", EnvDSN, setup)
		}
		tb.Skipf("pgtest: no PostgreSQL (set %s or install the postgresql package): %v", EnvDSN, setup)
	}
	return server
}

func execAdmin(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

type privateCluster struct {
	dir      string // removed by stop
	bin      string
	cred     *syscall.Credential // nil unless the binaries run as another user
	password string              // of the cluster's superuser, veet
	dsn      string
}

// start runs initdb and pg_ctl start; as root, both run as the postgres
// user, which PostgreSQL requires.
func start() (*privateCluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &privateCluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, int(uid), int(gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := c.initdb(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A free port can be taken between the probe and the start: try again.
	for attempt := 0; ; attempt++ {
		err = c.startServer()
		if err == nil || attempt == 2 {
			break
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *privateCluster) initdb() error {
	password := make([]byte, 16)
	rand.Read(password)
	c.password = hex.EncodeToString(password)
	pwfile := filepath.Join(c.dir, "pw")
	if err := os.WriteFile(pwfile, []byte(c.password+"\n"), 0o600); err != nil {
		return err
	}
	if err := c.own(pwfile); err != nil {
		return err
	}
	defer os.Remove(pwfile)
	err := c.run("initdb", "-D", filepath.Join(c.dir, "data"), "-U", "veet", "--pwfile", pwfile,
		"--auth-host=scram-sha-256", "--auth-local=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync")
	return err
}

func (c *privateCluster) startServer() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	sock := filepath.Join(c.dir, "sock")
	if err := os.MkdirAll(sock, 0o700); err != nil {
		return err
	}
	if err := c.own(sock); err != nil {
		return err
	}
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c max_connections=200", port, sock)
	err = c.run("pg_ctl", "start", "-w", "-t", strconv.Itoa(int(startTimeout/time.Second)),
		"-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "log"), "-o", opts)
	if err != nil {
		return err
	}
	c.dsn = fmt.Sprintf("postgres://veet:%s@127.0.0.1:%d/postgres?sslmode=disable", c.password, port)
	return nil
}

func (c *privateCluster) stop() error {
	err := c.run("pg_ctl", "stop", "-w", "-m", "fast", "-D", filepath.Join(c.dir, "data"))
	return errors.Join(err, os.RemoveAll(c.dir))
}

func (c *privateCluster) own(path string) error {
	if c.cred == nil {
		return nil
	}
	return os.Chown(path, int(c.cred.Uid), int(c.cred.Gid))
}

func (c *privateCluster) run(name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		return fmt.Errorf("%s: %w\n%s\n%s", name, err, out, log)
	}
	return nil
}

// binDir is the newest of Debian's /usr/lib/postgresql/<version>/bin,
// else the directory of initdb on PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real), nil
		}
	}
	return "", errors.New("no PostgreSQL server binaries (initdb, pg_ctl) found")
}

func version(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// loopbackDSN refuses a DSN whose host is not a loopback address or a
// unix socket directory.
func loopbackDSN(dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("%s is not a URL: %w", EnvDSN, err)
	}
	host := u.Hostname()
	if host == "" || strings.HasPrefix(host, "/") || host == "localhost" {
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s must point at 127.0.0.0/8, ::1 or a unix socket, not %q", EnvDSN, host)
}
