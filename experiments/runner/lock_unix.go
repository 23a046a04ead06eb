//go:build unix

package runner

import (
	"errors"
	"os"
	"syscall"
)

// errLocked is tryLock's error for a lock another holder has.
var errLocked = syscall.EWOULDBLOCK

// tryLock takes an exclusive flock(2) on f without blocking (EINTR retried).
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
