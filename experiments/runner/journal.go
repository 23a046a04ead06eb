package runner

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"expmech/rows"
)

// An entry is one finished (cell, algorithm, trial): its row and, with save_outputs, the
// released point (formatted like the row's floats, so that NaN and ±Inf survive JSON).
type entry struct {
	Cell      string   `json:"cell"`
	Algorithm string   `json:"algorithm"`
	Trial     int      `json:"trial"`
	Row       rows.Row `json:"row"`
	X         []string `json:"x,omitempty"`
}

func (e entry) id() string { return e.Cell + "\x00" + e.Algorithm + "\x00" + strconv.Itoa(e.Trial) }

// header is the first line of a journal or shard file: which run the entries belong to.
type header struct {
	Identity   string `json:"identity"` // experiments.Spec.Identity()
	Experiment string `json:"experiment"`
	Shard      int    `json:"shard"`
	Shards     int    `json:"shards"` // 0 when unsharded
	Entries    int    `json:"entries,omitempty"`
	// Rows and Deal (shard files): the rows of the whole experiment and the SHA-256 of
	// the deal of rows to shards (shardOf), which every shard of one array shares.
	Rows     int      `json:"rows,omitempty"`
	Deal     string   `json:"deal,omitempty"`
	SpecPath string   `json:"spec_path,omitempty"`
	Spec     string   `json:"spec,omitempty"` // spec bytes (shard files, for -merge)
	Quick    bool     `json:"quick,omitempty"`
	Trials   int      `json:"trials,omitempty"`
	Seed     uint64   `json:"seed,omitempty"`
	Flags    []string `json:"flags,omitempty"`
}

type line struct {
	Header *header `json:"header,omitempty"`
	Entry  *entry  `json:"entry,omitempty"`
}

// readJournal reads a journal or shard file, dropping a torn last line (no newline or not
// JSON: a kill mid-write); good is the length of the intact prefix. Other bad lines are errors.
func readJournal(path string) (h *header, es []entry, good int64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, 0, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, ln := range lines {
		last := i == len(lines)-1 || (i == len(lines)-2 && len(lines[len(lines)-1]) == 0)
		if len(ln) == 0 {
			continue
		}
		var l line
		if !bytes.HasSuffix(ln, []byte("\n")) || json.Unmarshal(ln, &l) != nil || (l.Header == nil && l.Entry == nil) {
			if last {
				break // torn last line
			}
			return nil, nil, 0, fmt.Errorf("journal %s: corrupt line %d", path, i+1)
		}
		switch {
		case l.Header != nil && i == 0:
			h = l.Header
		case l.Entry != nil && h != nil:
			es = append(es, *l.Entry)
		default:
			return nil, nil, 0, fmt.Errorf("journal %s: line %d out of place", path, i+1)
		}
		good += int64(len(ln))
	}
	if h == nil {
		return nil, nil, 0, fmt.Errorf("journal %s: no header", path)
	}
	return h, es, good, nil
}

// journal appends entries, one JSON line per write call, so a kill -9 loses at most the
// line being written, which readJournal drops.
type journal struct {
	f   *os.File
	buf bytes.Buffer
}

func createJournal(path string, h header) (*journal, error) {
	f, err := openMode(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, JournalMode)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f}
	if err := j.write(line{Header: &h}); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// appendJournal reopens a journal for appending after truncating a torn last line.
func appendJournal(path string, good int64) (*journal, error) {
	if err := os.Truncate(path, good); err != nil {
		return nil, err
	}
	f, err := openMode(path, os.O_WRONLY|os.O_APPEND, JournalMode) // a journal of an older version was 0644
	if err != nil {
		return nil, err
	}
	return &journal{f: f}, nil
}

func (j *journal) write(l line) error {
	j.buf.Reset()
	if err := json.NewEncoder(&j.buf).Encode(l); err != nil {
		return err
	}
	_, err := j.f.Write(j.buf.Bytes())
	return err
}

func (j *journal) close() error {
	if err := j.f.Sync(); err != nil {
		j.f.Close()
		return err
	}
	return j.f.Close()
}

// sortEntries orders entries by cell, algorithm, trial (DESIGN.md results.csv).
func sortEntries(es []entry) {
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.Cell, b.Cell), strings.Compare(a.Algorithm, b.Algorithm), a.Trial-b.Trial)
	})
}

// writeShardFile writes the sorted entries of one shard, with its header, atomically.
func writeShardFile(path string, h header, es []entry) error {
	h.Entries = len(es)
	return rows.WriteFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		if err := enc.Encode(line{Header: &h}); err != nil {
			return err
		}
		for i := range es {
			if err := enc.Encode(line{Entry: &es[i]}); err != nil {
				return err
			}
		}
		return nil
	})
}

// JournalMode is the journal's mode: owner only, since it holds every row with its
// diagnostics (PRIVACY.md §8) and is the writer's own log, never a result to share.
const JournalMode os.FileMode = 0o600

// openMode opens path with flag and sets its mode to mode whatever the umask or an older
// file's mode (the journal and the lock files; the others go through rows.WriteFile).
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

// ErrBusy is returned (wrapped), before anything is written, when another run, shard or
// merge holds the lock of the results it would write (one writer per folder; exit 2).
var ErrBusy = errors.New("another run is writing there")

// lockName is a writer's lock file: ".lock" for results.csv's (a run, a merge),
// ".lock-shard-I-of-N" for shard I's, so the shards may run side by side into one folder.
func lockName(o Options) string {
	if o.Shards > 1 {
		return fmt.Sprintf(".lock-shard-%d-of-%d", o.Shard, o.Shards)
	}
	return ".lock"
}

// folderLock is an exclusive flock(2) on a file of an experiment folder, held for one run;
// the kernel releases it however the holder exits (no stale lock). The empty file stays:
// removing it would let a second writer lock a new file while the first holds the old.
type folderLock struct{ f *os.File }

// lockPatience is how long lockFolder retries a held lock before ErrBusy.
const lockPatience = 500 * time.Millisecond

// lockFolder creates dir and takes the lock name in it, or ErrBusy when another process or
// open of the file holds it for lockPatience.
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
	// A fork(2) of this process (git, a test's child) holds a copy of the descriptor until
	// its exec, so a lock just released may look held that long; a writer holds it its run.
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

// MergeInfo is what a merge learned: the shard files' header, with the spec they ran (for
// the caller's analysis) and its options, and the merged Result.
type MergeInfo struct {
	header
	Result Result
}

var shardRE = regexp.MustCompile(`^shard-(\d+)-of-(\d+)\.jsonl$`)

// merge reads the shard files of the experiment folder dir: every shard 0 … N−1 must be
// there, complete and from the same run (identity).
func merge(dir string) (info MergeInfo, all []entry, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "shard-*-of-*.jsonl"))
	if err != nil {
		return info, nil, err
	}
	if len(files) == 0 {
		return info, nil, fmt.Errorf("merge: no shard files (shard-I-of-N.jsonl) in %s", dir)
	}
	var first *header
	seen := map[int]bool{}
	ids := map[string]bool{}
	for _, f := range files {
		m := shardRE.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			continue
		}
		h, es, _, err := readJournal(f)
		if err != nil {
			return info, nil, fmt.Errorf("merge: %w", err)
		}
		i, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if h.Shard != i || h.Shards != n {
			return info, nil, fmt.Errorf("merge: %s says it is shard %d of %d", f, h.Shard, h.Shards)
		}
		if h.Entries != len(es) {
			return info, nil, fmt.Errorf("merge: %s is incomplete (%d of %d rows)", f, len(es), h.Entries)
		}
		if first == nil {
			first = h
		} else if h.Identity != first.Identity || h.Shards != first.Shards {
			return info, nil, fmt.Errorf("merge: %s is from another run (%s, %d shards) than the others (%s, %d shards)", f, h.Identity, h.Shards, first.Identity, first.Shards)
		} else if h.Deal != first.Deal || h.Rows != first.Rows {
			return info, nil, fmt.Errorf("merge: %s dealt the rows otherwise than the others (deal %.12s of %d rows vs %.12s of %d; a shard from another build?)", f, h.Deal, h.Rows, first.Deal, first.Rows)
		}
		seen[i] = true
		for _, e := range es {
			if ids[e.id()] {
				return info, nil, fmt.Errorf("merge: row %s/%s/%d appears in two shards", e.Cell, e.Algorithm, e.Trial)
			}
			ids[e.id()] = true
		}
		all = append(all, es...)
	}
	if first == nil {
		return info, nil, fmt.Errorf("merge: no shard files in %s", dir)
	}
	var missing, nums []string
	for i := 0; i < first.Shards; i++ {
		if !seen[i] {
			missing = append(missing, shardName(i, first.Shards))
			nums = append(nums, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return info, nil, fmt.Errorf("merge: %d of %d shards missing in %s: %s (rerun them with -shard I/%d; on SLURM: sbatch --array=%s %s, then merge again)",
			len(missing), first.Shards, dir, strings.Join(missing, ", "), first.Shards, strings.Join(nums, ","), filepath.Join(dir, "slurm-array.sbatch"))
	}
	if first.Rows > 0 && len(all) != first.Rows {
		return info, nil, fmt.Errorf("merge: the %d shards hold %d rows of the run's %d", first.Shards, len(all), first.Rows)
	}
	sortEntries(all)
	return MergeInfo{header: *first}, all, nil
}

// MergeDir merges the shards in dir into results.csv, outputs.csv (when the spec saves
// outputs) and manifest.json, holding the folder's lock (else ErrBusy).
func MergeDir(dir string, flags []string, force bool) (MergeInfo, error) {
	start := time.Now()
	if _, err := os.Stat(dir); err != nil {
		return MergeInfo{}, fmt.Errorf("merge: %w", err) // the lock would create dir
	}
	lk, err := lockFolder(dir, lockName(Options{}))
	if err != nil {
		return MergeInfo{}, err
	}
	defer lk.release()
	info, es, err := merge(dir)
	if err != nil {
		return info, err
	}
	if err := refuseFinished(filepath.Join(dir, "results.csv"), force); err != nil {
		return info, err
	}
	res := Result{Dir: dir, File: filepath.Join(dir, "results.csv")}
	res.tally(es)
	info.Result = res
	h := info.header
	h.Flags = flags // the merge's
	man := manifest(h, start, res, ReadProvenance())
	man["merged_shards"] = info.Shards
	save := slices.ContainsFunc(es, func(e entry) bool { return len(e.X) > 0 })
	return info, writeResults(dir, save, es, man)
}
