package errcode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorIsThePublicLineOnly(t *testing.T) {
	cause := errors.New("dial tcp 10.1.2.3:9222: secret internal detail")
	err := Wrap(BrowserUnavailable, cause, "could not attach to the browser")
	if got := err.Error(); got != "browser_unavailable: could not attach to the browser" {
		t.Fatalf("Error() = %q", got)
	}
	if !errors.Is(err, cause) {
		t.Fatal("the internal cause is not reachable through Unwrap")
	}
	code, msg := Public(fmt.Errorf("opening: %w", err))
	if code != BrowserUnavailable || strings.Contains(msg, "secret") {
		t.Fatalf("Public = %s %q", code, msg)
	}
}

func TestQuoteCutsAtTheBound(t *testing.T) {
	at := strings.Repeat("é", QuoteRunes)
	if got := Quote(at); got != `"`+at+`"` {
		t.Fatalf("Quote of %d runes = %s", QuoteRunes, got)
	}
	past := at + "x"
	if got := Quote(past); got != `"`+at+`…"` {
		t.Fatalf("Quote of %d runes = %s", QuoteRunes+1, got)
	}
	huge := strings.Repeat("k", 10<<20)
	if got := Quote(huge); len(got) > 100 {
		t.Fatalf("Quote of 10 MB is %d bytes", len(got))
	}
	if got := Quote("a\nb\"c"); got != `"a\nb\"c"` {
		t.Fatalf("Quote does not escape: %s", got)
	}
}

func TestMessagesAreBoundedAndOneLine(t *testing.T) {
	huge := strings.Repeat("€", 1<<20)
	for _, err := range []*Error{
		New(InvalidArgument, "unknown key %s", huge),
		Wrap(InvalidArgument, errors.New("x"), "bad %s", huge),
		{Code: InvalidArgument, Message: huge}, // built by hand: Public still bounds it
	} {
		_, msg := Public(err)
		if len(msg) > MaxMessageBytes || !utf8.ValidString(msg) || !strings.HasSuffix(msg, "…") {
			t.Fatalf("message of %d bytes, valid UTF-8 %v", len(msg), utf8.ValidString(msg))
		}
	}
	at := strings.Repeat("a", MaxMessageBytes)
	if got := New(InvalidArgument, "%s", at).Message; got != at {
		t.Fatalf("a message of exactly %d bytes was changed", MaxMessageBytes)
	}
	if got := New(InvalidArgument, "%s", at+"a").Message; len(got) > MaxMessageBytes || !strings.HasSuffix(got, "…") {
		t.Fatalf("a message of %d bytes was not cut: %d bytes", MaxMessageBytes+1, len(got))
	}
	if got := New(InvalidArgument, "two\nlines\r\nhere").Message; got != "two lines here" {
		t.Fatalf("message %q is not one line", got)
	}
}

func TestPublicHidesUncodedErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code Code
	}{
		{errors.New("/home/user/.config secret"), Internal},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), Timeout},
		{context.Canceled, Cancelled},
	} {
		code, msg := Public(tc.err)
		if code != tc.code || strings.Contains(msg, "secret") {
			t.Errorf("Public(%v) = %s %q", tc.err, code, msg)
		}
	}
}

func TestLogRecordsTheInternalCause(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx := context.Background()

	Log(ctx, logger, "tool failed", Wrap(CaptureFailed, errors.New("Runtime.evaluate: target closed"), "the page could not be observed"), "tool", "browser_observe")
	out := buf.String()
	for _, want := range []string{"level=WARN", "error.code=capture_failed", "target closed", "tool=browser_observe"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s: %s", want, out)
		}
	}

	buf.Reset()
	Log(ctx, logger, "tool failed", New(StaleReference, "the reference is from an older observation"))
	if !strings.Contains(buf.String(), "level=INFO") {
		t.Errorf("a refusal is not logged at info: %s", buf.String())
	}

	buf.Reset()
	Log(ctx, logger, "tool failed", errors.New("unclassified boom"))
	if out := buf.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "unclassified boom") {
		t.Errorf("an unclassified error is not logged at error: %s", out)
	}

	Log(ctx, nil, "nothing", errors.New("x")) // a nil logger discards
}

func TestLogBoundsTheCause(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	huge := strings.Repeat("x", 1<<20)
	Log(context.Background(), logger, "tool failed", Wrap(InvalidArgument, errors.New(huge), "invalid arguments"))
	Log(context.Background(), logger, "tool failed", errors.New(huge))
	if buf.Len() > 3*MaxLoggedBytes {
		t.Fatalf("two log lines of %d bytes", buf.Len())
	}
}
