package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// FileMode is the mode of every file the harness writes: results are meant to be shared
// (a cluster's project folder), so group and world may read them whatever the umask.
const FileMode os.FileMode = 0o644

// WriteFile is the one way the harness writes an output file: through a temporary file in
// the same folder that is written, fsynced, given FileMode and renamed over path (then
// the folder is fsynced), so a reader sees the old file or the new one, never a part,
// and a crash after WriteFile returns does not lose it.
func WriteFile(path string, write func(w io.Writer) error) error {
	pf, err := renameio.NewPendingFile(path, renameio.WithStaticPermissions(FileMode))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer pf.Cleanup()
	bw := bufio.NewWriter(pf)
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	if err := d.Close(); serr == nil {
		serr = err
	}
	return serr
}

// createAppend creates (truncating) an append-only log with FileMode.
func createAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, FileMode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(FileMode); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
