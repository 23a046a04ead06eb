package runner

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"expmech/experiments"
	"expmech/rows"
)

// The result cache (README "Result cache") stores every computed row under a SHA-256 key
// of everything that determines it (the code's part from codekey.go) and nothing else:
// not the experiment's name, the cell's index or the algorithm's label, which an edit of
// the spec may change without changing the row. The cell's identity columns
// (baseColumns) and the label are not stored but filled from the current spec, so a
// cached row is the row a fresh run would write (wall_seconds apart).
//
// Layout: DIR/<first two hex digits>/<key>.json, one entry per file, written atomically
// (writeUnsynced). A file that does not decode or whose key differs is a miss.
type cache struct {
	dir   string
	cells []cellKey
	data  map[string]string // data file → SHA-256 of its bytes
}

// cellKey holds the digests shared by the rows of one cell.
type cellKey struct {
	problem []byte   // problem + budget
	algs    [][]byte // per algorithm: name + config
}

// cacheVersion changes when the key or the entry format changes.
const cacheVersion = "expmech-row-cache/2"

type cacheEntry struct {
	Key string   `json:"key"`
	Row rows.Row `json:"row"`
	X   []string `json:"x,omitempty"`
}

// newCache digests every cell's problem and budget and its algorithms. The code part of a
// row's key is keys.rowCode for its algorithm and problem, or codeVersion, the whole
// code's version, when those keys are unknown.
func newCache(dir, codeVersion string, p *plan, keys codeKeys) (*cache, error) {
	c := &cache{dir: dir, data: map[string]string{}}
	for _, cp := range p.cells {
		pc := cp.Problem
		h := sha256.New()
		put := func(s string) { putString(h, s) }
		put("problem")
		put(pc.Kind)
		put(pc.Loss.String())
		put(string(cp.Task))
		put(pc.Domain.String())
		putFloat(h, pc.Radius)
		for _, v := range []int{pc.N, pc.D, pc.Rank} {
			putInt(h, int64(v))
		}
		putFloat(h, pc.GK)
		put(strconv.FormatBool(pc.HasRank) + strconv.FormatBool(pc.HasGK))
		put(c.dataHash(pc.Data))
		params, err := experiments.Canonical(pc.Params)
		if err != nil {
			return nil, fmt.Errorf("cache key of cell %s: params: %w", cp.ID, err)
		}
		h.Write(lenPrefix(params))
		put("budget")
		putFloat(h, cp.budget.Epsilon)
		putFloat(h, cp.budget.Delta)
		putInt(h, int64(cp.budget.Relation))
		put(string(cp.budget.Task))
		ck := cellKey{problem: h.Sum(nil)}
		for i, a := range p.spec.Algorithms {
			cfg, err := experiments.Canonical(cp.Configs[i])
			if err != nil {
				return nil, fmt.Errorf("cache key of cell %s, algorithm %s: %w", cp.ID, a.Label, err)
			}
			ah := sha256.New()
			putString(ah, cmp.Or(keys.rowCode(p.gen, p.facs[i], a), codeVersion))
			putString(ah, a.Name)
			ah.Write(lenPrefix(cfg))
			// The tuning protocol wraps the mechanism (Registry.Tune): its mode, grid and law
			// of the number of runs determine the row as much as the config does.
			putString(ah, "tuning")
			putString(ah, string(a.Tuning))
			putString(ah, strconv.FormatBool(a.TuningExplicit))
			for _, g := range a.Grid {
				putString(ah, g.Knob)
				for _, v := range g.Values {
					putFloat(ah, v)
				}
			}
			putFloat(ah, a.TuningRuns)
			if a.TuningEta != nil {
				putFloat(ah, *a.TuningEta)
			} else {
				putString(ah, "eta:default")
			}
			if a.AuditBatch > 0 { // absent from older keys: their rows stay valid
				putString(ah, "audit_batch")
				putInt(ah, int64(a.AuditBatch))
			}
			ck.algs = append(ck.algs, ah.Sum(nil))
		}
		c.cells = append(c.cells, ck)
	}
	return c, nil
}

// dataHash names a data file by its bytes ("" without one).
func (c *cache) dataHash(path string) string {
	if path == "" {
		return ""
	}
	if s, ok := c.data[path]; ok {
		return s
	}
	s := "unreadable"
	if b, err := os.ReadFile(path); err == nil {
		sum := sha256.Sum256(b)
		s = hex.EncodeToString(sum[:])
	}
	c.data[path] = s
	return s
}

// key is the row key of (cell ci, algorithm ai, trial) with the trial's seeds.
func (c *cache) key(ci, ai, trial int, seeds [4]uint64, saveOutputs bool) string {
	h := sha256.New()
	putString(h, cacheVersion)
	h.Write(c.cells[ci].problem)
	h.Write(c.cells[ci].algs[ai])
	putInt(h, int64(trial))
	for _, s := range seeds {
		putInt(h, int64(s))
	}
	putString(h, strconv.FormatBool(saveOutputs))
	return hex.EncodeToString(h.Sum(nil))
}

func (c *cache) path(key string) string { return filepath.Join(c.dir, key[:2], key+".json") }

// get returns the stored part of a row (nil on a miss).
func (c *cache) get(key string) (*cacheEntry, error) {
	b, err := os.ReadFile(c.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.Key != key || e.Row == nil {
		return nil, nil // torn or foreign: recompute
	}
	return &e, nil
}

// put stores row r without the cell's identity columns and the label.
func (c *cache) put(key string, r rows.Row, base map[string]string, x []string) error {
	stored := make(rows.Row, len(r))
	for k, v := range r {
		if _, ok := base[k]; !ok && k != "algorithm" {
			stored[k] = v
		}
	}
	p := c.path(key)
	b, err := json.Marshal(cacheEntry{Key: key, Row: stored, X: x})
	if err != nil {
		return err
	}
	b = append(b, '\n')
	// The entry's folder exists but for the first entry of its two-hex prefix: try the
	// write first and make the folder only when it is missing, rather than a stat and a
	// mkdir before every row's write.
	err = writeUnsynced(p, b)
	if errors.Is(err, fs.ErrNotExist) {
		if err := rows.MkdirAll(filepath.Dir(p)); err != nil {
			return err
		}
		err = writeUnsynced(p, b)
	}
	return err
}

// writeUnsynced writes b to path through a temporary file renamed over it, with
// rows.FileMode, like rows.WriteFile but without its two fsyncs: a cache entry is written
// per row on the worker's path, where the fsyncs cost more than small rows (erm_rates:
// 60% of the trials' time). A crash may leave an entry empty or torn; get reads it as a
// miss and the row is recomputed, so the cache needs no durability.
func writeUnsynced(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Chmod(rows.FileMode); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cache: write %s: %w", path, err)
	}
	return nil
}

// row rebuilds the full row of a cached entry under the current cell and label.
func (e *cacheEntry) row(base map[string]string, label string) rows.Row {
	r := make(rows.Row, len(e.Row)+len(base)+1)
	maps.Copy(r, base)
	maps.Copy(r, e.Row)
	r[rows.ColAlgorithm] = label
	return r
}

func putString(h hash.Hash, s string) { h.Write(lenPrefix([]byte(s))) }

func lenPrefix(b []byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(len(b))), b...)
}

func putInt(h hash.Hash, v int64) { h.Write(binary.BigEndian.AppendUint64(nil, uint64(v))) }

func putFloat(h hash.Hash, v float64) { putInt(h, int64(math.Float64bits(v))) }
