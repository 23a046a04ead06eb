package runner

import (
	"os"

	"expmech/rows"
)

// createAppend creates (truncating) an append-only log (a journal) with rows.FileMode.
// Every other file goes through rows.WriteFile.
func createAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, rows.FileMode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(rows.FileMode); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
