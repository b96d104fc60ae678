package loopback

import (
	"net"
	"strings"
)

// Host reports whether host (a Host header or a URL's host, with or
// without a port) names this machine's loopback: localhost or a loopback
// IP. A name other than localhost is not resolved: it may name another
// machine tomorrow.
func Host(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
