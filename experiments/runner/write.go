package runner

import "os"

// JournalMode is the journal's mode: owner only. The journal holds every row with its
// diagnostics (PRIVACY.md §8: K, clip rates, …) before they are split off, and is the
// writer's own log for -resume, never a result to share.
const JournalMode os.FileMode = 0o600

// createAppend creates (truncating) an append-only log (a journal) with JournalMode.
// Every other file goes through rows.WriteFile.
func createAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, JournalMode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(JournalMode); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
