package browser

import "context"

// Downloads (tool version 1.10.0, docs/downloads.md): a download a page
// starts lands in the session's directory, under a sanitized name and the
// size caps, and is never opened.

// Download caps: the defaults of DownloadOptions. 64 MiB a file holds the
// documents, archives and data exports a task fetches, and 256 MiB a session
// bounds what one task can leave on the user's disk; both are far below what
// would fill a temp dir.
const (
	DefaultMaxDownload      int64 = 64 << 20
	DefaultMaxDownloadTotal int64 = 256 << 20
)

// MaxDownloadName bounds a download's file name, in bytes.
const MaxDownloadName = 120

// MaxKeptDownloads bounds the downloads a session lists: the oldest this
// many, the rest counted.
const MaxKeptDownloads = 100

// Download states.
const (
	DownloadCompleted  = "completed"   // the whole file is in the directory
	DownloadCanceled   = "canceled"    // the browser or the page stopped it; nothing kept
	DownloadRefused    = "refused"     // its origin is outside the grant; cancelled, nothing kept
	DownloadTooLarge   = "too_large"   // past a cap; cancelled, nothing kept
	DownloadInProgress = "in_progress" // not finished when the action settled
)

// DownloadOptions are where a session's downloads go and what they may be.
type DownloadOptions struct {
	Dir      string // an existing directory; the files land here
	MaxFile  int64  // bytes of one file; 0: DefaultMaxDownload
	MaxTotal int64  // bytes of the session's kept files; 0: DefaultMaxDownloadTotal
	// Allowed says whether a download's origin may be kept; nil allows
	// every origin.
	Allowed func(origin string) bool
}

// Download is one download of a session. SHA256 is of the file on disk,
// set once it is completed.
type Download struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
	State  string `json:"state"`
	Origin string `json:"origin"`
}

// Downloads is a session's downloads, oldest first: at most
// MaxKeptDownloads listed, More counts the rest.
type Downloads struct {
	List []Download `json:"downloads"`
	More int        `json:"more,omitempty"`
}

// Downloader is a Session that keeps downloads (SessionOptions.Downloads).
type Downloader interface {
	// Downloads lists the session's downloads.
	Downloads(ctx context.Context) (Downloads, error)
}
