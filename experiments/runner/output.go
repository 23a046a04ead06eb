package runner

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"expmech/experiments"
	"expmech/rows"
)

// writeResults writes results.csv (and outputs.csv with save_outputs) atomically from
// sorted entries, then manifest.json.
func writeResults(dir string, saveOutputs bool, es []entry, man map[string]any) error {
	rs := make([]rows.Row, len(es))
	for i, e := range es {
		rs[i] = e.Row
	}
	if err := WriteFile(filepath.Join(dir, "results.csv"), func(w io.Writer) error {
		return rows.WriteCSV(w, nil, rs)
	}); err != nil {
		return err
	}
	if saveOutputs {
		if err := WriteFile(filepath.Join(dir, "outputs.csv"), func(w io.Writer) error {
			cw := csv.NewWriter(w)
			cw.Write([]string{"cell", "algorithm", "trial", "coordinate", "value"})
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
	return WriteFile(filepath.Join(dir, "manifest.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(man)
	})
}

// manifest is the provenance of a run (DESIGN.md manifest.json).
func manifest(spec *experiments.Spec, flags []string, start time.Time, workers int, res Result) map[string]any {
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
		"go_version":  runtime.Version(),
		"machine": map[string]any{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "hostname": host,
		},
		"start":      start.UTC().Format(time.RFC3339Nano),
		"end":        time.Now().UTC().Format(time.RFC3339Nano),
		"rows":       res.Rows,
		"error_rows": res.Errors,
		"resumed":    res.Skipped,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods := map[string]string{}
		for _, d := range bi.Deps {
			mods[d.Path] = d.Version
		}
		m["modules"] = mods
		m["main_module"] = bi.Main.Path
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				m["git_commit"] = s.Value
			}
		}
	}
	if _, ok := m["git_commit"]; !ok {
		if c := gitCommit(); c != "" {
			m["git_commit"] = c
		}
	}
	return m
}

// gitCommit reads HEAD of the repository around the working directory ("" if none),
// without running git.
func gitCommit() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		g := filepath.Join(dir, ".git")
		if head, err := os.ReadFile(filepath.Join(g, "HEAD")); err == nil {
			h := strings.TrimSpace(string(head))
			ref, isRef := strings.CutPrefix(h, "ref: ")
			if !isRef {
				return h
			}
			if b, err := os.ReadFile(filepath.Join(g, filepath.FromSlash(ref))); err == nil {
				return strings.TrimSpace(string(b))
			}
			if b, err := os.ReadFile(filepath.Join(g, "packed-refs")); err == nil {
				for _, ln := range strings.Split(string(b), "\n") {
					if sha, name, ok := strings.Cut(ln, " "); ok && name == ref {
						return sha
					}
				}
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// firstFrames returns the first few frames of a panic stack on one line.
func firstFrames(stack []byte) string {
	lines := bytes.Split(stack, []byte("\n"))
	var out []string
	for _, l := range lines {
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
