package runner

import "os"

// JournalMode is the journal's mode: owner only. The journal holds every row with its
// diagnostics (PRIVACY.md §8: K, clip rates, …) before they are split off, and is the
// writer's own log for -resume, never a result to share.
const JournalMode os.FileMode = 0o600

// openMode opens path with flag and sets its mode to mode whatever the umask or an older
// file's mode: the journal (JournalMode) and the lock files. Every other file goes through
// rows.WriteFile.
func openMode(path string, flag int, mode os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag, mode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
