package veetbrowser

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
)

// uploadRoot confines uploads to one directory.
type uploadRoot struct {
	dir string
	max int64
}

// resolve returns the real paths of files inside the root, after symlinks,
// or upload_refused. Paths are relative to the root or absolute inside it.
func (u uploadRoot) resolve(paths []string) ([]string, error) {
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
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, errcode.Wrap(errcode.UploadRefused, err, "%q is not a file in the upload root", filepath.Base(p))
		}
		if !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return nil, errcode.New(errcode.UploadRefused, "%q is outside the upload root", filepath.Base(p))
		}
		fi, err := os.Stat(real)
		if err != nil || !fi.Mode().IsRegular() {
			return nil, errcode.New(errcode.UploadRefused, "%q is not a regular file", filepath.Base(p))
		}
		if fi.Size() > u.max {
			return nil, errcode.New(errcode.UploadRefused, "%q is larger than the %d-byte limit", filepath.Base(p), u.max)
		}
		out = append(out, real)
	}
	return out, nil
}
