package tools

import "encoding/json"

// Downloads lists the session's downloads (1.10.0, docs/downloads.md).
const Downloads = "browser_downloads"

func downloadsTool() Tool {
	return Tool{
		Name: Downloads,
		Description: "The session's downloads, oldest first (at most 100, the rest counted): name, bytes, sha256, " +
			"state (completed, canceled, refused, too_large, in_progress) and origin. Files are kept, never opened.",
		InputSchema: object(nil),
		ReadOnly:    true,
	}
}

// DownloadsArgs are browser_downloads' arguments: none.
type DownloadsArgs struct{}

// ParseDownloads parses browser_downloads' arguments strictly.
func ParseDownloads(raw json.RawMessage) (DownloadsArgs, error) {
	var a DownloadsArgs
	return a, strict(raw, &a)
}
