package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
	"expmech/rows"
)

// writeResults writes results.csv (and outputs.csv with save_outputs) from sorted entries,
// then manifest.json; the rows.DiagnosticColumns go to diagnostics.csv (splitDiagnostics).
func writeResults(dir string, saveOutputs bool, es []entry, man map[string]any) error {
	rs := make([]rows.Row, len(es))
	var diag []rows.Row
	for i, e := range es {
		rs[i], diag = splitDiagnostics(e.Row, diag)
	}
	write := func(name string, f func(io.Writer) error) error { return rows.WriteFile(filepath.Join(dir, name), f) }
	if err := write("results.csv", func(w io.Writer) error { return rows.WriteCSV(w, nil, rs) }); err != nil {
		return err
	}
	if len(diag) > 0 {
		header := []string{rows.ColCell, rows.ColAlgorithm, rows.ColTrial}
		for _, c := range rows.DiagnosticColumns() {
			if slices.ContainsFunc(diag, func(r rows.Row) bool { _, ok := r[c]; return ok }) {
				header = append(header, c)
			}
		}
		if err := write(rows.DiagnosticsFile, func(w io.Writer) error { return rows.WriteCSV(w, header, diag) }); err != nil {
			return err
		}
	} else if err := os.Remove(filepath.Join(dir, rows.DiagnosticsFile)); err != nil && !os.IsNotExist(err) {
		return err // a stale file of an earlier run (-force) must not pass for this run's
	}
	if saveOutputs {
		if err := write("outputs.csv", func(w io.Writer) error {
			cw := csv.NewWriter(w)
			cw.Write([]string{rows.ColCell, rows.ColAlgorithm, rows.ColTrial, "coordinate", "value"})
			for _, e := range es {
				t := strconv.Itoa(e.Trial)
				for j, v := range e.X {
					cw.Write([]string{e.Cell, e.Algorithm, t, strconv.Itoa(j), v})
				}
			}
			cw.Flush()
			return cw.Error()
		}); err != nil {
			return err
		}
	}
	return write("manifest.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(man)
	})
}

// manifest is the provenance of a run (DESIGN.md manifest.json).
func manifest(spec *experiments.Spec, flags []string, start time.Time, workers int, res Result, prov Provenance) map[string]any {
	host, _ := os.Hostname()
	m := map[string]any{
		"experiment":  spec.Name,
		"spec_path":   spec.Path,
		"spec_sha256": spec.Hash,
		"spec":        string(spec.Bytes),
		"identity":    spec.Identity(),
		"quick":       spec.Shrunk,
		"trials":      spec.Trials,
		"seed":        spec.Seed,
		"flags":       flags,
		"workers":     workers,
		"machine": map[string]any{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "hostname": host,
		},
		"start":      start.UTC().Format(time.RFC3339Nano),
		"end":        time.Now().UTC().Format(time.RFC3339Nano),
		"rows":       res.Rows,
		"error_rows": res.Errors, "refused_rows": res.Refused,
		"resumed":  res.Skipped,
		"cached":   res.Cached,
		"computed": res.Computed,
		// rows_in_flight and workers_busy below are their ratios (Result)
		"row_seconds":   res.RowSeconds,
		"busy_seconds":  res.BusySeconds,
		"trial_seconds": res.TrialSeconds,
	}
	if res.TrialSeconds > 0 {
		m["rows_in_flight"] = res.RowSeconds / res.TrialSeconds
		m["workers_busy"] = res.BusySeconds / res.TrialSeconds
	}
	addProvenance(m, prov)
	return m
}

// addProvenance records the Provenance and the module versions.
func addProvenance(m map[string]any, prov Provenance) {
	m["go_version"] = prov.GoVersion
	m["main_module"] = prov.Module
	m["git_commit"] = prov.Commit
	m["git_dirty"] = map[string]any{"true": true, "false": false}[prov.Dirty] // a JSON boolean, null when unknown (no VCS stamp and no git)
	m["code_version"] = prov.CodeVersion
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods := map[string]string{}
		for _, d := range bi.Deps {
			mods[d.Path] = d.Version
		}
		m["modules"] = mods
	}
}

// firstFrames returns the first few frames of a panic stack on one line.
func firstFrames(stack []byte) string {
	var out []string
	for _, l := range bytes.Split(stack, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if bytes.HasPrefix(l, []byte("/")) && !bytes.Contains(l, []byte("/runtime/")) && !bytes.Contains(l, []byte("runner/")) {
			out = append(out, string(l))
			if len(out) == 3 {
				break
			}
		}
	}
	return strings.Join(out, " < ")
}

// splitDiagnostics returns r without its rows.DiagnosticColumns, appending them (keyed by
// cell, algorithm and trial) to diag when r has any.
func splitDiagnostics(r rows.Row, diag []rows.Row) (rows.Row, []rows.Row) {
	out := make(rows.Row, len(r))
	var d rows.Row
	for k, v := range r {
		if rows.IsDiagnostic(k) {
			if d == nil {
				d = rows.Row{rows.ColCell: r[rows.ColCell], rows.ColAlgorithm: r[rows.ColAlgorithm], rows.ColTrial: r[rows.ColTrial]}
			}
			d[k] = v
			continue
		}
		out[k] = v
	}
	if d != nil {
		diag = append(diag, d)
	}
	return out, diag
}

func fmtI(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// recordColumns writes a mechanism Record into row r (NaN → empty; Extra → extra
// columns, renamed "x_<key>" if a key collides with a DESIGN.md column).
func recordColumns(r rows.Row, rec algorithms.Record) {
	r[rows.ColDeltaMech] = rows.Float(rec.DeltaMech)
	r[rows.ColGDPS] = rows.Float(rec.GDPS)
	r[rows.ColEpsilonSpent] = rows.Float(rec.EpsilonSpent)
	r[rows.ColK] = rows.Float(rec.K)
	r[rows.ColMu] = rows.Float(rec.Mu)
	r[rows.ColSigma] = rows.Float(rec.Sigma)
	r[rows.ColSteps] = fmtI(rec.Steps)
	r[rows.ColBatch] = fmtI(rec.Batch)
	r[rows.ColTheoryBound] = rows.Float(rec.TheoryBound)
	r[rows.ColGuarantee] = string(rec.Guarantee)
	if rec.Tuning != "" {
		r[rows.ColTuning] = string(rec.Tuning)
	}
	if rec.Notes != "" {
		r[rows.ColNotes] = oneLine(rec.Notes)
	}
	for k, v := range rec.Extra {
		if rows.IsCanonical(k) {
			k = "x_" + k
		}
		r[k] = rows.Float(v)
	}
}

// certifyColumns re-derives the row's guarantee from what the mechanism reports it ran and
// spent (algorithms.Certify), which it can only claim, and writes the certificate columns;
// each trusted constant's provenance comes from the cell's constants c, not the record.
func certifyColumns(r rows.Row, rec algorithms.Record, b algorithms.Budget, c problems.Constants) {
	g, reason := algorithms.Certify(rec, b, c)
	r[rows.ColGuarantee] = string(g)
	r[rows.ColDeltaSpent] = rows.Float(rec.DeltaSpent)
	if reason != "" {
		r[rows.ColGuaranteeReason] = oneLine(reason)
	}
	if len(rec.Trusted) > 0 {
		names := make([]string, len(rec.Trusted))
		for i, t := range rec.Trusted {
			names[i] = t.Name
		}
		r[rows.ColTrustedConstants] = algorithms.TrustedText(algorithms.Trust(c, names...))
	}
}

// plannedCounts publishes the plan's counts, rounded, as value_queries and gradient_queries
// of a row whose counted ones its guarantee does not cover (algorithms.Record.PlannedCounts,
// PRIVACY.md §8); the counted ones move to the diagnostics (rows.ColCountedValueQueries).
func plannedCounts(r rows.Row, rec algorithms.Record) {
	if !rec.PlannedCounts {
		return
	}
	r[rows.ColCountedValueQueries], r[rows.ColCountedGradientQueries] = r[rows.ColValueQueries], r[rows.ColGradientQueries]
	r[rows.ColValueQueries] = rows.Float(math.Round(rec.PredictedValueQueries))
	r[rows.ColGradientQueries] = rows.Float(math.Round(rec.PredictedGradientQueries))
}

// failColumns marks r as a failed trial: status error (refused for algorithms.ErrRefused),
// the error on one line, and guarantee none, since a failed trial releases nothing
// whatever its plan calibrated (PRIVACY.md §8).
func failColumns(r rows.Row, err error) {
	r[rows.ColStatus], r[rows.ColError] = string(rows.StatusError), oneLine(err.Error())
	if errors.Is(err, algorithms.ErrRefused) {
		r[rows.ColStatus] = string(rows.StatusRefused)
	}
	r[rows.ColGuarantee] = string(algorithms.None)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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
// else (`go run`, `go test`) asks git about the module's own source folder (moduleRoot),
// never the working directory's repository. Read once per process (git twice and a hash of
// every source file).
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
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return "unknown"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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
