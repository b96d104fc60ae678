// Package peerbench times veetbrowser beside other browser MCP servers on
// the small pages of package benchpages: BenchmarkPeers drives each server
// over MCP stdio, warm, on the same Chromium and the same loopback pages,
// and reports each navigate and observe call per server and page. It is a
// benchmark, not a test: it runs only when $VEET_PEERS names the peers'
// command lines, and never installs anything (docs/observation.md).
package peerbench
