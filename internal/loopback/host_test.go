package loopback

import "testing"

func TestHost(t *testing.T) {
	for _, c := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:9222", true},     // the usual DevTools endpoint
		{"127.255.255.254", true},    // anywhere in 127.0.0.0/8
		{"[::1]:9222", true},         // IPv6 loopback with a port
		{"::1", true},                // and without
		{"LOCALHOST:80", true},       // the name, in any case
		{"128.0.0.1:9222", false},    // just past 127.0.0.0/8
		{"10.0.0.5:9222", false},     // a private address is another machine
		{"localhost.example", false}, // a name is not resolved
		{"", false},
	} {
		if got := Host(c.host); got != c.want {
			t.Errorf("Host(%q) = %v, want %v", c.host, got, c.want)
		}
	}
}
