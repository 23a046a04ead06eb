package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MergeInfo is what a merge learned from the shard files: their header, with the spec
// they ran (SpecPath, Spec: so the caller can decode it again and run the analysis) and
// the options that shaped it (Quick, Trials, Seed, Shards), and the merged Result.
type MergeInfo struct {
	header
	Result Result
}

var shardRE = regexp.MustCompile(`^shard-(\d+)-of-(\d+)\.jsonl$`)

// merge combines the shard files of dir (one experiment folder) into results.csv. Every
// shard 0 … N−1 must be present, complete and from the same run (identity); otherwise
// nothing is written.
func merge(dir string) (MergeInfo, []entry, error) {
	files, err := filepath.Glob(filepath.Join(dir, "shard-*-of-*.jsonl"))
	if err != nil {
		return MergeInfo{}, nil, err
	}
	if len(files) == 0 {
		return MergeInfo{}, nil, fmt.Errorf("merge: no shard files (shard-I-of-N.jsonl) in %s", dir)
	}
	var info MergeInfo
	var first *header
	seen := map[int]bool{}
	var all []entry
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

// MergeDir merges the shards in dir and writes results.csv, outputs.csv (when the spec
// saves outputs) and manifest.json, holding the folder's lock (ErrBusy while a run or
// another merge writes results.csv there).
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
	man := map[string]any{
		"spec_path": info.SpecPath, "spec": info.Spec, "merged_shards": info.Shards,
		"quick": info.Quick, "trials": info.Trials, "seed": info.Seed, "flags": flags,
		"rows": res.Rows, "error_rows": res.Errors, "refused_rows": res.Refused,
		"start": start.UTC().Format(time.RFC3339Nano), "end": time.Now().UTC().Format(time.RFC3339Nano),
	}
	addProvenance(man, ReadProvenance())
	save := slices.ContainsFunc(es, func(e entry) bool { return len(e.X) > 0 })
	return info, writeResults(dir, save, es, man)
}
