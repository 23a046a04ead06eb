package runner

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"hash"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
	"expmech/rows"
)

// The result cache (DESIGN.md "Result cache") stores every computed row without the cell's
// identity columns and the label, which come from the current spec (takeKnown), in
// DIR/<first two hex digits>/<key>.json, written atomically; a file that does not decode or
// whose key differs is a miss.
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

// newCache digests every cell's problem, budget and algorithms (code: rowCode, else codeVersion).
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
			// the tuning protocol wrapping the mechanism (Registry.Tune) shapes the row too
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
	// The folder is missing only for the first entry of its prefix: write first, rather
	// than a stat and a mkdir before every row's write.
	err = writeUnsynced(p, b)
	if errors.Is(err, fs.ErrNotExist) {
		if err := rows.MkdirAll(filepath.Dir(p)); err != nil {
			return err
		}
		err = writeUnsynced(p, b)
	}
	return err
}

// writeUnsynced writes b to path like rows.WriteFile but without its two fsyncs, which on
// the worker's path cost more than small rows (erm_rates: 60% of the trials' time). A crash
// may leave an entry empty or torn; get reads it as a miss, so the cache needs no durability.
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

func putString(h hash.Hash, s string) { h.Write(lenPrefix([]byte(s))) }

func lenPrefix(b []byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(len(b))), b...)
}

func putInt(h hash.Hash, v int64) { h.Write(binary.BigEndian.AppendUint64(nil, uint64(v))) }

func putFloat(h hash.Hash, v float64) { putInt(h, int64(math.Float64bits(v))) }

// packageKeys is the closure key of every package, "path=key;…", stamped by `make build`
// (-ldflags -X; scripts/codekeys), else "". Set only by the linker, never assigned.
var packageKeys string

// runnerPackage is this package's import path: every row depends on it.
const runnerPackage = "expmech/experiments/runner"

// Package is one package of the module: its import path, the non-test Go files of the
// current build (names and folder) and its imports inside the module.
type Package struct {
	Path    string
	Dir     string
	Files   []string
	Imports []string
}

// PackageKeys returns the closure key of every package (DESIGN.md "Result cache"): the
// SHA-256 over the Go version, go.mod and go.sum, and, for the package and every module
// package it imports (transitively) in path order, the path and the bytes of its Go files.
func PackageKeys(root string, pkgs []Package) (map[string]string, error) {
	own := map[string][]byte{}
	deps := map[string][]string{}
	for _, p := range pkgs {
		h := sha256.New()
		for _, f := range slices.Sorted(slices.Values(p.Files)) {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				return nil, err
			}
			putString(h, f)
			h.Write(lenPrefix(b))
		}
		own[p.Path] = h.Sum(nil)
		deps[p.Path] = p.Imports
	}
	mod := sha256.New()
	putString(mod, runtime.Version())
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		mod.Write(lenPrefix(b))
	}
	modSum := mod.Sum(nil)
	keys := map[string]string{}
	for _, p := range pkgs {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(q string) {
			if seen[q] {
				return
			}
			seen[q] = true
			for _, d := range deps[q] {
				if _, ok := own[d]; ok {
					walk(d)
				}
			}
		}
		walk(p.Path)
		h := sha256.New()
		putString(h, "expmech-package-closure/1")
		h.Write(modSum)
		for _, q := range slices.Sorted(maps.Keys(seen)) {
			putString(h, q)
			h.Write(own[q])
		}
		keys[p.Path] = hex.EncodeToString(h.Sum(nil))
	}
	return keys, nil
}

// EncodePackageKeys is the stamp of keys: "path=key;…" in path order.
func EncodePackageKeys(keys map[string]string) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(keys)) {
		parts = append(parts, p+"="+keys[p])
	}
	return strings.Join(parts, ";")
}

// ScanPackages lists the packages of the module expmech at root as `go build` sees them
// (go/build applies the build constraints), outside results, figures, bin and testdata.
func ScanPackages(root string) ([]Package, error) {
	var pkgs []Package
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		base := d.Name()
		if rel != "." && (rel == "results" || rel == "figures" || rel == "bin" || base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
			return filepath.SkipDir // a module of its own (examples/*, scripts/k8s/validate), as go list sees it
		}
		bp, err := build.Default.ImportDir(path, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return fmt.Errorf("%s: %w", rel, err)
		}
		ip := "expmech"
		if rel != "." {
			ip += "/" + rel
		}
		p := Package{Path: ip, Dir: path, Files: bp.GoFiles}
		for _, im := range bp.Imports {
			if im == "expmech" || strings.HasPrefix(im, "expmech/") {
				p.Imports = append(p.Imports, im)
			}
		}
		pkgs = append(pkgs, p)
		return nil
	})
	return pkgs, err
}

// codeKeys are the closure keys of the module's packages (nil: unknown; see rowCode).
type codeKeys map[string]string

// loadCodeKeys returns the stamped keys, else the sources' (code version src:…), else nil.
func loadCodeKeys(prov *Provenance) codeKeys {
	if packageKeys != "" {
		keys := codeKeys{}
		for _, kv := range strings.Split(packageKeys, ";") {
			if p, k, ok := strings.Cut(kv, "="); ok {
				keys[p] = k
			}
		}
		return keys
	}
	if prov == nil || !strings.HasPrefix(prov.CodeVersion, "src:") {
		return nil
	}
	return sourceKeysOnce()
}

// sourceKeysOnce is the package keys of the module's source folder, scanned once (nil when
// it cannot be). Set at initialisation; callers do not modify the map.
var sourceKeysOnce = sync.OnceValue(func() codeKeys {
	root := moduleRoot()
	if root == "" {
		return nil
	}
	pkgs, err := ScanPackages(root)
	if err != nil {
		return nil
	}
	keys, _ := PackageKeys(root, pkgs) // nil on error
	return keys
})

// wrapperPackages hold mechanisms wrapping other registered ones passed in as values (the
// audit's variants): their rows run code their package does not import, so they key by all.
var wrapperPackages = []string{"expmech/algorithms/auditing"}

// rowCode is the code key of the rows of algorithm a (factory f) on problems of gen, made
// of the closure keys DESIGN.md "Result cache" lists; "" when a package is unknown, so
// that the caller keys by the whole code version.
func (k codeKeys) rowCode(gen problems.Generator, f algorithms.Factory, a experiments.Algorithm) string {
	if k == nil || gen == nil || f.NewConfig == nil {
		return ""
	}
	pkgs := []string{runnerPackage, typePackage(gen)}
	ap := typePackage(f.NewConfig())
	if slices.Contains(wrapperPackages, ap) {
		return ""
	}
	pkgs = append(pkgs, ap)
	if a.Tuning.Tuned() || len(a.Grid) > 0 {
		pkgs = append(pkgs, "expmech/algorithms/tuning")
	}
	h := sha256.New()
	putString(h, "expmech-row-code/1")
	for _, p := range pkgs {
		key, ok := k[p]
		if !ok {
			return ""
		}
		putString(h, p)
		putString(h, key)
	}
	return "pkgs:" + hex.EncodeToString(h.Sum(nil))
}

// typePackage is the import path of the package that defines v's (pointed-to) type.
func typePackage(v any) string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return t.PkgPath()
}

// RowCode is rowCode under the package keys keys, exported for the tests of the wiring.
func RowCode(keys map[string]string, gen problems.Generator, f algorithms.Factory, a experiments.Algorithm) string {
	return codeKeys(keys).rowCode(gen, f, a)
}

// calibVersion changes when the file format or the key's derivation changes.
const calibVersion = "expmech-calibration-cache/1"

// calibStore is the calibration cache (README "Result cache", its last paragraph), laid out
// and read like the result cache under CACHE/calib, named by the SHA-256 of code version and key.
type calibStore struct {
	dir              string // "" keeps answers in memory only
	version          string // the code's version (Provenance.CodeVersion)
	mu               sync.Mutex
	m                map[string]*calibAnswer
	computed, loaded atomic.Int64 // answers computed here and read from disk
	// wait blocks until an answer another goroutine is computing is there (a plain receive
	// by default); a run sets it to its slots' wait before any Calibration call.
	wait func(<-chan struct{})
}

type calibAnswer struct {
	done chan struct{} // closed when b is there
	b    []byte
}

type calibFile struct {
	Key   string          `json:"key"`
	Code  string          `json:"code"`
	Value json.RawMessage `json:"value"`
}

func newCalibStore(dir, codeVersion string) *calibStore {
	return &calibStore{dir: dir, version: codeVersion, m: map[string]*calibAnswer{},
		wait: func(ch <-chan struct{}) { <-ch }}
}

var _ algorithms.Store = (*calibStore)(nil)

// Calibration returns key's answer, computing it on a miss; nil (a failure) stays off disk.
func (s *calibStore) Calibration(key string, compute func() []byte) []byte {
	s.mu.Lock()
	a := s.m[key]
	mine := a == nil
	if mine {
		a = &calibAnswer{done: make(chan struct{})}
		s.m[key] = a
	}
	s.mu.Unlock()
	if !mine {
		s.wait(a.done)
		return a.b
	}
	defer close(a.done) // also when compute panics: the waiters get nil, as on a failure
	if b := s.load(key); b != nil {
		a.b = b
		s.loaded.Add(1)
		return a.b
	}
	a.b = compute()
	s.computed.Add(1)
	s.save(key, a.b)
	return a.b
}

func (s *calibStore) path(key string) string {
	h := sha256.New()
	putString(h, calibVersion)
	putString(h, s.version)
	putString(h, key)
	name := hex.EncodeToString(h.Sum(nil))
	return filepath.Join(s.dir, name[:2], name+".json")
}

func (s *calibStore) load(key string) []byte {
	if s.dir == "" {
		return nil
	}
	b, err := os.ReadFile(s.path(key))
	if err != nil {
		return nil
	}
	var f calibFile
	if json.Unmarshal(b, &f) != nil || f.Key != key || f.Code != s.version || len(f.Value) == 0 {
		return nil // torn or foreign: recompute
	}
	return f.Value
}

// save stores b (best effort: a store that cannot write only costs a recomputation).
func (s *calibStore) save(key string, b []byte) {
	if s.dir == "" || b == nil || !json.Valid(b) {
		return
	}
	p := s.path(key)
	if rows.MkdirAll(filepath.Dir(p)) != nil {
		return
	}
	_ = rows.WriteFile(p, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(calibFile{Key: key, Code: s.version, Value: b})
	})
}

// calibrationStoreFor is a run's calibration store: in the result cache when on, else in memory.
func calibrationStoreFor(o Options) *calibStore {
	if dir := o.cacheDir(); dir != "" {
		return newCalibStore(filepath.Join(dir, "calib"), o.Provenance.CodeVersion)
	}
	return newCalibStore("", "")
}

// sourceHash is SourceHash of the module, stamped by `make build` (-ldflags -X), else "".
// Set only by the linker: a constant of the binary, never assigned.
var sourceHash string

// Provenance identifies the code that produced a result (manifest.json, -version).
type Provenance struct {
	Module    string // the main module's path ("expmech")
	Commit    string // the module's own VCS revision ("" if unknown)
	Dirty     string // "true" | "false" | "" (unknown): uncommitted changes in the module
	GoVersion string
	// CodeVersion keys the result cache: "src:<SourceHash>" for a `make build` binary and
	// for `go run`/`go test` (compiled from the tree just now), so neither an edited spec
	// nor a commit of documents invalidates the cache; else "git:<commit>" for a `go build`
	// of a clean commit; else "sha256:<hash of the running executable>", the only faithful
	// name of a dirty tree's build or of another module's binary that imports expmech.
	CodeVersion string
}

// ReadProvenance reads the build info stamped by `go build` (vcs.revision, vcs.modified),
// else (`go run`, `go test`) asks git about the module's own source folder (moduleRoot), not
// the working directory's; once per process (git twice and a hash of every source file).
func ReadProvenance() Provenance { return provenanceOnce() }

// provenanceOnce is set at initialisation, never reassigned.
var provenanceOnce = sync.OnceValue(func() Provenance {
	p := Provenance{GoVersion: runtime.Version()}
	stamped := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		p.Module = bi.Main.Path
		for _, s := range bi.Settings {
			stamped = stamped || strings.HasPrefix(s.Key, "vcs.")
			switch s.Key {
			case "vcs.revision":
				p.Commit = s.Value
			case "vcs.modified":
				p.Dirty = s.Value
			}
		}
	}
	root := moduleRoot()
	if p.Commit == "" && root != "" {
		if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
			p.Commit = strings.TrimSpace(string(out))
			if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
				p.Dirty = strconv.FormatBool(len(strings.TrimSpace(string(st))) > 0)
			}
		}
	}
	p.CodeVersion = codeVersion(stamped, root, p)
	return p
})

func codeVersion(stamped bool, root string, p Provenance) string {
	if p.Module != "" && p.Module != "expmech" {
		// another module importing expmech: neither this tree's sources nor its commit
		// (which does not pin a replaced expmech folder) name all of its code
		return "sha256:" + executableHash()
	}
	if sourceHash != "" {
		return "src:" + sourceHash
	}
	if !stamped && root != "" {
		if h, err := SourceHash(root); err == nil {
			return "src:" + h
		}
	}
	if p.Commit != "" && p.Dirty == "false" {
		return "git:" + p.Commit
	}
	return "sha256:" + executableHash()
}

// moduleRoot is the module's source folder if this binary was built from one that still
// exists (two levels above this file, holding go.mod of module expmech), else "".
func moduleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "" // -trimpath
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(b), "module expmech\n") {
		return ""
	}
	return root
}

func executableHash() string {
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil { // streamed: the binary is tens of MB
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return hex.EncodeToString(h.Sum(nil))
			}
		}
	}
	return "unknown"
}

// SourceHash is the SHA-256 (hex) of the module's code as `make build` stamps it: the
// bytes of every non-test .go file under root (outside the top-level results, figures and
// bin) in byte order of their "./"-prefixed slash paths, then go.mod and go.sum.
func SourceHash(root string) (string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "results" || rel == "figures" || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			files = append(files, "./"+rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	slices.Sort(files)
	files = append(files, "go.mod", "go.sum")
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

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
	Identity   string   `json:"identity"` // experiments.Spec.Identity()
	Experiment string   `json:"experiment"`
	Shard      int      `json:"shard"`
	Shards     int      `json:"shards"` // 0 when unsharded
	Entries    int      `json:"entries,omitempty"`
	Rows       int      `json:"rows,omitempty"` // shard files: the rows of the whole experiment
	Deal       string   `json:"deal,omitempty"` // shard files: the deal's SHA-256 (dealHash)
	SpecPath   string   `json:"spec_path,omitempty"`
	Spec       string   `json:"spec,omitempty"` // spec bytes (shard files, for -merge)
	Quick      bool     `json:"quick,omitempty"`
	Trials     int      `json:"trials,omitempty"`
	Seed       uint64   `json:"seed,omitempty"`
	Flags      []string `json:"flags,omitempty"`
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

// journal appends entries, one JSON line per write, so a kill -9 loses at most the last line.
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

// MergeInfo is what a merge learned: the shard files' header (the spec they ran, its
// options: for the caller's analysis) and the merged Result.
type MergeInfo struct {
	header
	Result Result
}

var shardRE = regexp.MustCompile(`^shard-(\d+)-of-(\d+)\.jsonl$`)

// merge reads dir's shard files: every shard 0 … N−1, complete, of the same run (identity).
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
