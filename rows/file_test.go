package rows

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFile: the file is exactly FileMode under umask 077, replaces the old one, and a
// failed write leaves the old one intact and no temporary file behind. Not parallel: the
// umask is per process.
func TestWriteFile(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "results.csv")
	for _, body := range []string{"first\n", "second\n"} {
		if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		info, _ := os.Stat(path)
		if string(b) != body || info.Mode().Perm() != FileMode {
			t.Errorf("got %q mode %v, want %q mode %v", b, info.Mode().Perm(), body, FileMode)
		}
	}
	boom := errors.New("boom")
	if err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "partial"); return boom }); !errors.Is(err, boom) {
		t.Errorf("failed write: got %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "second\n" {
		t.Errorf("after a failed write: %q, want the previous content", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("folder holds %d entries after a failed write, want 1 (no temporary file)", len(es))
	}
}
