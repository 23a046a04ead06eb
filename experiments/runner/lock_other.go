//go:build !unix

package runner

import (
	"errors"
	"os"
)

// errLocked is never returned here: without flock(2) the folder is not locked.
var errLocked = errors.New("locked")

// tryLock is a no-op without flock(2) (DESIGN.md "Output files": the lock is Unix-only).
func tryLock(*os.File) error { return nil }
