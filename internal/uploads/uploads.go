// Package uploads confines the files of browser_upload to one root
// directory and bounds them: how many files one upload takes, how large
// each may be, and how many bytes of copies a session keeps at once. A
// local session (the runtime) and a hosted one (package hosted) check and
// copy files with the same Root, so the same paths are refused with the
// same codes by both.
package uploads

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/veetbot/veetbrowser/errcode"
)

// The defaults of Limits' fields.
const (
	DefaultMaxFile  = 10 << 20 // bytes of one file
	DefaultMaxFiles = 16       // files of one upload
	DefaultMaxKept  = 64 << 20 // bytes of copies one session keeps at once
)

// Limits bound uploads; 0 takes the default, a negative value is refused.
type Limits struct {
	MaxFile  int64 // bytes of one file
	MaxFiles int   // files of one upload
	MaxKept  int64 // bytes of all the copies a session keeps at once
}

// Root confines uploads to one directory and bounds them.
type Root struct {
	dir      string
	maxFile  int64
	maxFiles int
	maxKept  int64
}

// New returns the root dir under l; "" refuses every upload.
func New(dir string, l Limits) (Root, error) {
	if l.MaxFile < 0 || l.MaxFiles < 0 || l.MaxKept < 0 {
		return Root{}, errcode.New(errcode.InvalidArgument, "upload limits cannot be negative")
	}
	u := Root{dir: dir, maxFile: l.MaxFile, maxFiles: l.MaxFiles, maxKept: l.MaxKept}
	if u.maxFile == 0 {
		u.maxFile = DefaultMaxFile
	}
	if u.maxFiles == 0 {
		u.maxFiles = DefaultMaxFiles
	}
	if u.maxKept == 0 {
		u.maxKept = DefaultMaxKept
	}
	return u, nil
}

// Limits are the root's limits, defaults filled in.
func (u Root) Limits() Limits {
	return Limits{MaxFile: u.maxFile, MaxFiles: u.maxFiles, MaxKept: u.maxKept}
}

// Check refuses, before the page is touched, what no page could accept.
func (u Root) Check(paths []string) error {
	if u.dir == "" {
		return errcode.New(errcode.UploadRefused, "uploads are not enabled for this session")
	}
	if len(paths) == 0 {
		return errcode.New(errcode.InvalidArgument, "give at least one path")
	}
	if len(paths) > u.maxFiles {
		return errcode.New(errcode.UploadRefused, "at most %d files can be uploaded at once", u.maxFiles)
	}
	return nil
}

// Copy checks each path and copies the file into dir, a directory only its
// caller writes, returning the copies and their total size, at most room
// bytes. Chromium reads the copies, later: a file swapped or grown after
// the check cannot be read through them. Paths are relative to the root or
// absolute inside it.
func (u Root) Copy(ctx context.Context, paths []string, dir string, room int64) ([]string, int64, error) {
	if err := u.Check(paths); err != nil {
		return nil, 0, err
	}
	root, err := filepath.EvalSymlinks(u.dir)
	if err != nil {
		return nil, 0, errcode.Wrap(errcode.UploadRefused, err, "the upload root is not available")
	}
	out := make([]string, 0, len(paths))
	var total int64
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		name := filepath.Base(p)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, 0, errcode.Wrap(errcode.UploadRefused, err, "%s is not a file in the upload root", errcode.Quote(name))
		}
		if !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return nil, 0, errcode.New(errcode.UploadRefused, "%s is outside the upload root", errcode.Quote(name))
		}
		copyPath := filepath.Join(dir, strconv.Itoa(i), filepath.Base(real))
		n, err := u.snapshot(real, copyPath, room-total)
		if err != nil {
			return nil, 0, err
		}
		total += n
		out = append(out, copyPath)
	}
	return out, total, nil
}

// snapshot copies real to dst after checking, on the opened file itself,
// that it is the regular file that was resolved, within the size limit and
// within room. It never blocks on a FIFO or a device: such a path is
// refused before it is opened, and opened without blocking in case it was
// swapped in meanwhile.
func (u Root) snapshot(real, dst string, room int64) (int64, error) {
	name := errcode.Quote(filepath.Base(real))
	li, err := os.Lstat(real)
	if err != nil || !li.Mode().IsRegular() {
		return 0, errcode.New(errcode.UploadRefused, "%s is not a regular file", name)
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, errcode.Wrap(errcode.UploadRefused, err, "%s cannot be read", name)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, li) {
		return 0, errcode.New(errcode.UploadRefused, "%s changed while it was checked", name)
	}
	// The path must still lead to the opened file: no component swapped.
	if again, err := filepath.EvalSymlinks(real); err != nil || again != real {
		return 0, errcode.New(errcode.UploadRefused, "%s changed while it was checked", name)
	}
	if fi.Size() > u.maxFile {
		return 0, errcode.New(errcode.UploadRefused, "%s is larger than the %d-byte limit", name, u.maxFile)
	}
	if fi.Size() > room {
		return 0, u.keptError(name)
	}
	limit := min(u.maxFile, room)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return 0, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	// Copy at most the limit plus one byte: a file that grew is refused.
	n, err := io.Copy(out, io.LimitReader(f, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil || n > limit {
		os.Remove(dst)
		if err == nil && room < u.maxFile {
			return 0, u.keptError(name)
		}
		return 0, errcode.Wrap(errcode.UploadRefused, err, "%s could not be copied within the %d-byte limit", name, u.maxFile)
	}
	return n, nil
}

func (u Root) keptError(name string) error {
	return errcode.New(errcode.UploadRefused, "%s does not fit: a session keeps at most %d bytes of uploaded files", name, u.maxKept)
}
