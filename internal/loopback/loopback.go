// Package loopback is about this machine's loopback: Serve serves an
// http.Handler on 127.0.0.1 with a random port, for the demo site and the
// suite's sites; Host tells whether a host names the loopback.
package loopback

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Serve starts h on 127.0.0.1 and returns its base URL (no trailing slash)
// and a func that stops it.
func Serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
