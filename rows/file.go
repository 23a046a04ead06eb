package rows

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
	if err == nil {
		defer pf.Cleanup()
		bw := bufio.NewWriter(pf)
		if err = write(bw); err == nil {
			if err = bw.Flush(); err == nil {
				err = pf.CloseAtomicallyReplace()
			}
		}
	}
	if err != nil {
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

// DirMode is the mode of every folder the harness creates: group and world may enter it.
const DirMode os.FileMode = 0o755

// MkdirAll creates path and its missing parents with DirMode whatever the umask (folders
// that already exist keep their mode), so that the files WriteFile puts there are
// readable by others, not just readable in name.
func MkdirAll(path string) error {
	var created []string
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		}
		created = append(created, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(path, DirMode); err != nil {
		return err
	}
	for _, p := range created {
		if err := os.Chmod(p, DirMode); err != nil {
			return err
		}
	}
	return nil
}
