package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"expmech/rows"
)

// ErrBusy is returned (wrapped) when another run, shard or merge holds the lock of the
// results it would write (DESIGN.md "Output files": one writer per folder). It is refused
// before anything is written; the CLI exits with status 2.
var ErrBusy = errors.New("another run is writing there")

// lockName is the lock file of a writer: ".lock" for the writers of results.csv (an
// unsharded run, a merge), ".lock-shard-I-of-N" for shard I's run, so that the shards of
// one experiment may run side by side into one folder.
func lockName(o Options) string {
	if o.Shards > 1 {
		return fmt.Sprintf(".lock-shard-%d-of-%d", o.Shard, o.Shards)
	}
	return ".lock"
}

// folderLock is an exclusive lock on a file of an experiment folder, held for the length
// of one run: flock(2) on an open file, so the kernel releases it when the holder exits,
// whatever way (a kill -9 leaves no stale lock). The lock file itself stays (empty);
// removing it would let a second writer lock a new file while the first holds the old.
type folderLock struct{ f *os.File }

// lockPatience is how long lockFolder retries a held lock before ErrBusy.
const lockPatience = 500 * time.Millisecond

// lockFolder creates dir and takes the lock name in it: a lock held by another process,
// or another open of the same file in this one, for lockPatience is ErrBusy.
func lockFolder(dir, name string) (*folderLock, error) {
	if err := rows.MkdirAll(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	f, err := openMode(path, os.O_RDWR|os.O_CREATE, rows.FileMode)
	if err != nil {
		return nil, err
	}
	err = tryLock(f)
	// A fork(2) of this process (git for the provenance, a test's child) copies every
	// descriptor, this lock's included, until the child's exec closes it: a lock just
	// released may look held for that moment. A real writer holds it for its whole run.
	for deadline := time.Now().Add(lockPatience); errors.Is(err, errLocked) && time.Now().Before(deadline); {
		time.Sleep(lockPatience / 50)
		err = tryLock(f)
	}
	if err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("runner: %s is being written by another run (it holds %s); wait for it to finish or give another -out: %w", dir, path, ErrBusy)
		}
		return nil, fmt.Errorf("runner: lock %s: %w", path, err)
	}
	return &folderLock{f}, nil
}

// release drops the lock (nil-safe).
func (l *folderLock) release() {
	if l != nil {
		l.f.Close() // closing the last descriptor releases the flock
	}
}
