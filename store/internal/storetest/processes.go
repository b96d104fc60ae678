package storetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/storespec"
)

// Environment of a child process: its role and its store.
const (
	envRole    = "VEETBROWSER_STORETEST_ROLE"
	envSpec    = "VEETBROWSER_STORETEST_SPEC"
	envSession = "VEETBROWSER_STORETEST_SESSION"
	envWriter  = "VEETBROWSER_STORETEST_WRITER"
)

// Child runs the child role this process was started for, if any, and
// exits; the test binary's TestMain calls it first.
func Child() {
	role := os.Getenv(envRole)
	if role == "" {
		return
	}
	ctx := context.Background()
	st, err := storespec.Open(ctx, os.Getenv(envSpec))
	if err != nil {
		fmt.Println("open-error", errcode.Of(err), err, errors.Unwrap(err))
		os.Exit(2)
	}
	id := os.Getenv(envSession)
	switch role {
	case "crash":
		crashChild(ctx, st, id)
	case "writer":
		writer, _ := strconv.Atoi(os.Getenv(envWriter))
		for i := range ChildCalls {
			if _, err := st.Record(ctx, Call(id, writer*ChildCalls+i)); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		fmt.Println("done")
	case "write-once":
		_, err := st.Record(ctx, Call(id, 1))
		fmt.Println("code", errcode.Of(err))
	}
	os.Exit(0)
}

// ChildCalls is how many calls each writer process records.
const ChildCalls = 40

// crashChild records calls in a loop until it is killed: one goroutine
// writes whole records, the main one leaves an intent open, as a process
// killed between Intent and Complete would.
func crashChild(ctx context.Context, st store.Store, id string) {
	var out sync.Mutex
	say := func(format string, args ...any) {
		out.Lock()
		fmt.Printf(format+"\n", args...)
		out.Unlock()
	}
	go func() {
		for i := 0; ; i++ {
			seq, err := st.Record(ctx, Call(id, i))
			if err != nil {
				say("error %v", err)
				os.Exit(2)
			}
			say("record %d", seq)
		}
	}()
	seq, err := st.Intent(ctx, store.Call{SessionID: id, Tool: "browser_act", Arguments: json.RawMessage(`{"kind":"click","ref":"open"}`),
		StartedAt: time.Now()})
	if err != nil {
		say("error %v", err)
		os.Exit(2)
	}
	say("intent %d", seq)
	select {} // "dispatching" until killed
}

// KilledWriter: a process killed (SIGKILL) while it writes leaves whole
// records only, and its open intent stays an intent; the store opens and
// takes writes again.
func (s Suite) KilledWriter(t *testing.T) {
	t.Parallel()
	spec, st := s.withSession(t, "crash")
	st.Close()

	cmd := child(t, "crash", spec, "crash")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	recorded := map[int64]bool{}
	var intent int64
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) == 2 && f[0] == "record" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			recorded[n] = true
		} else if len(f) == 2 && f[0] == "intent" {
			intent, _ = strconv.ParseInt(f[1], 10, 64)
		} else {
			t.Fatalf("child: %s", lines.Text())
		}
		if intent != 0 && len(recorded) >= 30 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if intent == 0 || len(recorded) < 30 {
		t.Fatalf("the child stopped early: intent %d, %d records", intent, len(recorded))
	}

	st = s.open(t, spec)
	list := calls(t, st, "crash")
	checkSequence(t, list)
	for _, c := range list {
		if c.Seq == intent {
			if c.Status != store.StatusIntent || c.Outcome != "" || c.Observation != nil || c.View != nil {
				t.Fatalf("the open intent reads back as %+v", c)
			}
			continue
		}
		checkWhole(t, c)
		delete(recorded, c.Seq)
	}
	if len(recorded) != 0 {
		t.Fatalf("records the child saw committed are missing: %v", recorded)
	}
	t.Logf("%d calls recorded before the kill", len(list))
	if seq, err := st.Record(context.Background(), Call("crash", 1000)); err != nil || seq != int64(len(list)+1) {
		t.Fatalf("writing after the crash: %d, %v", seq, err)
	}
}

// TwoProcesses: two processes record into one session at once; every
// record is there once.
func (s Suite) TwoProcesses(t *testing.T) {
	t.Parallel()
	spec, st := s.withSession(t, "both")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for w := range 2 {
		cmd := child(t, "writer", spec, "both")
		cmd.Env = append(cmd.Env, envWriter+"="+strconv.Itoa(w))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for w, cmd := range cmds {
		if err := cmd.Wait(); err != nil || strings.TrimSpace(outs[w].String()) != "done" {
			t.Fatalf("writer %d: %v: %s", w, err, outs[w])
		}
	}
	list := calls(t, st, "both")
	checkSequence(t, list)
	seen := map[int]bool{}
	for _, c := range list {
		seen[checkWhole(t, c)] = true
	}
	if len(list) != 2*ChildCalls || len(seen) != 2*ChildCalls {
		t.Fatalf("%d calls, %d distinct, want %d", len(list), len(seen), 2*ChildCalls)
	}
}

// child is this test binary started in a child role.
func child(t testing.TB, role, spec, session string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envSpec+"="+spec, envSession+"="+session)
	return cmd
}

// WriteOnce is this test binary started in the role that writes one
// record and prints its outcome's code: a test runs it as another user.
func WriteOnce(t testing.TB, spec, session string) *exec.Cmd {
	return child(t, "write-once", spec, session)
}
