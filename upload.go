package veetbrowser

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/veetbot/veetbrowser/errcode"
)

// uploadRoot confines uploads to one directory.
type uploadRoot struct {
	dir string
	max int64
}

// resolve checks each path and copies the file into dir, a directory only
// this session writes, returning the copies. Chromium reads the copies,
// later: a file swapped or grown after the check cannot be read through
// them. Paths are relative to the root or absolute inside it.
func (u uploadRoot) resolve(paths []string, dir string) ([]string, error) {
	if u.dir == "" {
		return nil, errcode.New(errcode.UploadRefused, "uploads are not enabled for this session")
	}
	if len(paths) == 0 {
		return nil, errcode.New(errcode.InvalidArgument, "give at least one path")
	}
	root, err := filepath.EvalSymlinks(u.dir)
	if err != nil {
		return nil, errcode.Wrap(errcode.UploadRefused, err, "the upload root is not available")
	}
	out := make([]string, 0, len(paths))
	for i, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		name := filepath.Base(p)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, errcode.Wrap(errcode.UploadRefused, err, "%q is not a file in the upload root", name)
		}
		if !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return nil, errcode.New(errcode.UploadRefused, "%q is outside the upload root", name)
		}
		copyPath := filepath.Join(dir, strconv.Itoa(i), filepath.Base(real))
		if err := u.snapshot(real, copyPath); err != nil {
			return nil, err
		}
		out = append(out, copyPath)
	}
	return out, nil
}

// snapshot copies real to dst after checking, on the opened file itself,
// that it is the regular file that was resolved and within the size limit.
func (u uploadRoot) snapshot(real, dst string) error {
	name := filepath.Base(real)
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return errcode.Wrap(errcode.UploadRefused, err, "%q cannot be read", name)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return errcode.New(errcode.UploadRefused, "%q is not a regular file", name)
	}
	// The path must still lead to the opened file: no component swapped.
	if again, err := filepath.EvalSymlinks(real); err != nil || again != real {
		return errcode.New(errcode.UploadRefused, "%q changed while it was checked", name)
	}
	if li, err := os.Stat(real); err != nil || !os.SameFile(fi, li) {
		return errcode.New(errcode.UploadRefused, "%q changed while it was checked", name)
	}
	if fi.Size() > u.max {
		return errcode.New(errcode.UploadRefused, "%q is larger than the %d-byte limit", name, u.max)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return errcode.Wrap(errcode.UploadRefused, err, "the upload could not be prepared")
	}
	// Copy at most the limit plus one byte: a file that grew is refused.
	n, err := io.Copy(out, io.LimitReader(f, u.max+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil || n > u.max {
		os.Remove(dst)
		return errcode.Wrap(errcode.UploadRefused, err, "%q could not be copied within the %d-byte limit", name, u.max)
	}
	return nil
}
