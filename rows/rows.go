package rows

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/google/renameio/v2"
)

// Columns returns the canonical order of the DESIGN.md columns (a fresh slice); extra
// columns follow, sorted.
func Columns() []string { return slices.Clone(columns) }

// columns is read-only after initialisation (Columns).
var columns = []string{
	ColExperiment, ColCell, ColAlgorithm, ColTrial, ColSeed, ColProblemSeed,
	ColProblem, ColLossKind, ColDomain, ColTask, ColN, ColD, ColRank, ColGK,
	ColEpsilon, ColDelta, ColNeighbours, ColDeltaMech, ColGDPS, ColEpsilonSpent,
	ColK, ColMu, ColSigma, ColSteps, ColBatch,
	ColEmpiricalRisk, ColEmpiricalRiskOpt, ColExcessEmpiricalRisk, ColExcessPopulationRisk,
	ColTheoryBound, ColValueQueries, ColGradientQueries, ColGuarantee, ColStatus, ColError,
	ColWallSeconds,
}

// IsCanonical reports whether col is one of the Columns().
func IsCanonical(col string) bool { return slices.Contains(columns, col) }

// Row is one (cell, algorithm, trial) record: column name → formatted value ("" = empty).
type Row map[string]string

// Float formats v for a row: shortest round-trip form, "" for NaN, "inf"/"-inf" for ±Inf.
func Float(v float64) string {
	switch {
	case math.IsNaN(v):
		return ""
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ParseFloat is the inverse of Float; "" parses as NaN.
func ParseFloat(s string) (float64, error) {
	switch s {
	case "":
		return math.NaN(), nil
	case "inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// Header returns the canonical columns followed by every extra column present in rs, sorted.
func Header(rs []Row) []string {
	var extra []string
	seen := map[string]bool{}
	for _, r := range rs {
		for k := range r {
			if !IsCanonical(k) && !seen[k] {
				seen[k] = true
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	return append(Columns(), extra...)
}

// WriteCSV writes rs under header (Header(rs) if nil).
func WriteCSV(w io.Writer, header []string, rs []Row) error {
	if header == nil {
		header = Header(rs)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, len(header))
	for _, r := range rs {
		for j, c := range header {
			rec[j] = r[c]
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads rows written by WriteCSV into maps, through the same Reader (a malformed
// row is an error naming its line).
func ReadCSV(r io.Reader) ([]Row, error) {
	recs, err := ReadAll(r, "csv")
	if err != nil {
		return nil, err
	}
	out := make([]Row, len(recs))
	for i, rec := range recs {
		row := make(Row, len(rec.text))
		for j, c := range rec.h.cols {
			row[c] = rec.text[j]
		}
		out[i] = row
	}
	return out, nil
}

// FileMode is the mode of every file the harness writes: results are meant to be shared
// (a cluster's project folder), so group and world may read them whatever the umask.
const FileMode os.FileMode = 0o644

// WriteFile is the one way the harness writes an output file: through a temporary file in
// the same folder, fsynced, given FileMode and renamed over path (then the folder is
// fsynced), so a reader sees the old file or the new one, and a crash after WriteFile
// returns does not lose it.
func WriteFile(path string, write func(w io.Writer) error) error {
	pf, err := renameio.NewPendingFile(path, renameio.WithStaticPermissions(FileMode))
	if err == nil {
		defer pf.Cleanup()
		bw := bufio.NewWriter(pf)
		if err = write(bw); err == nil {
			if err = bw.Flush(); err == nil {
				err = pf.CloseAtomicallyReplace()
			}
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	if err := d.Close(); serr == nil {
		serr = err
	}
	return serr
}

// DirMode is the mode of every folder the harness creates: group and world may enter it.
const DirMode os.FileMode = 0o755

// MkdirAll creates path and its missing parents with DirMode whatever the umask (folders
// that already exist keep their mode).
func MkdirAll(path string) error {
	var created []string
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		}
		created = append(created, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(path, DirMode); err != nil {
		return err
	}
	for _, p := range created {
		if err := os.Chmod(p, DirMode); err != nil {
			return err
		}
	}
	return nil
}
