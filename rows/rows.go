package rows

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
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

// canonical is the set of columns, read-only after initialisation (IsCanonical).
var canonical = func() map[string]struct{} {
	m := make(map[string]struct{}, len(columns))
	for _, c := range columns {
		m[c] = struct{}{}
	}
	return m
}()

// IsCanonical reports whether col is one of the Columns() (a set lookup: the analysis asks
// it per row and column).
func IsCanonical(col string) bool {
	_, ok := canonical[col]
	return ok
}

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
	extra := map[string]bool{}
	for _, r := range rs {
		for k := range r {
			if !IsCanonical(k) {
				extra[k] = true
			}
		}
	}
	return append(Columns(), slices.Sorted(maps.Keys(extra))...)
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

// ReadCSV reads rows written by WriteCSV into maps through a Reader (errors name the line).
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

// WriteFile is the one way the harness writes an output file: a temporary file in the
// same folder, fsynced, given FileMode and renamed over path, then the folder fsynced, so
// a reader sees the old file or the new one, and a crash after WriteFile does not lose it.
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
	d, err := os.Open(filepath.Dir(path)) // fsync the folder: the rename is durable
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

// MkdirAll creates path and its missing parents with DirMode whatever the umask (existing
// folders keep their mode).
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

// KV is one identity pair: a column and its value as written.
type KV struct {
	Col, Value string
}

// Layout is the column layout shared by the records of one file.
type Layout struct {
	cols  []string
	index map[string]int
}

// NewLayout indexes cols; a duplicate column is an error.
func NewLayout(cols []string) (*Layout, error) {
	h := &Layout{cols: cols, index: make(map[string]int, len(cols))}
	for j, c := range cols {
		if _, dup := h.index[c]; dup {
			return nil, fmt.Errorf("duplicate column %q", c)
		}
		h.index[c] = j
	}
	return h, nil
}

// Columns returns the columns in file order (do not modify).
func (h *Layout) Columns() []string { return h.cols }

// Record is one parsed row: each column's text as written and its number, parsed once (NaN
// when empty or not a number). File and Line (1-based; 0 when built in memory) locate it.
type Record struct {
	File string
	Line int
	h    *Layout
	text []string
	num  []float64
}

func newRecord(h *Layout, text []string, file string, line int) (*Record, error) {
	r := &Record{File: file, Line: line, h: h, text: text, num: make([]float64, len(text))}
	for j, s := range text {
		v, err := ParseFloat(s)
		if err != nil {
			if IsNumeric(h.cols[j]) {
				return nil, fmt.Errorf("column %s: %q is not a number", h.cols[j], s)
			}
			v = math.NaN()
		}
		r.num[j] = v
	}
	return r, nil
}

// Text is the value of col as written ("" when empty or when the file has no such column).
func (r *Record) Text(col string) string {
	if j, ok := r.h.index[col]; ok {
		return r.text[j]
	}
	return ""
}

// Float is the number in col; ok is false when it is empty, not a number or NaN.
func (r *Record) Float(col string) (v float64, ok bool) {
	if j, present := r.h.index[col]; present && !math.IsNaN(r.num[j]) {
		return r.num[j], true
	}
	return math.NaN(), false
}

// OK reports whether the row's status is StatusOK.
func (r *Record) OK() bool { return Status(r.Text(ColStatus)) == StatusOK }

// Guarantee is the row's guarantee column as written (see ParseGuarantee).
func (r *Record) Guarantee() Guarantee { return Guarantee(r.Text(ColGuarantee)) }

// Tuning is the row's tuning column, DefaultTuning when empty or absent (an untuned row).
func (r *Record) Tuning() Tuning {
	if t := r.Text(ColTuning); t != "" {
		return Tuning(t)
	}
	return DefaultTuning
}

// Identity is the row's identity pairs, in IdentityColumns order.
func (r *Record) Identity() []KV {
	ids := IdentityColumns()
	out := make([]KV, len(ids))
	for i, c := range ids {
		out[i] = KV{Col: c, Value: r.Text(c)}
	}
	return out
}

// Layout is the column layout of the record's file.
func (r *Record) Layout() *Layout { return r.h }

// Reader streams Records from a CSV written by WriteCSV.
type Reader struct {
	cr   *csv.Reader
	file string
	h    *Layout
}

// NewReader reads the header of r; file names it in errors.
func NewReader(r io.Reader, file string) (*Reader, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("rows: %s: empty file (no header)", file)
	}
	if err != nil {
		return nil, fmt.Errorf("rows: %s: %w", file, err)
	}
	h, err := NewLayout(head)
	if err != nil {
		return nil, fmt.Errorf("rows: %s:1: %w", file, err)
	}
	cr.FieldsPerRecord = len(head)
	return &Reader{cr: cr, file: file, h: h}, nil
}

// Layout is the file's column layout.
func (rd *Reader) Layout() *Layout { return rd.h }

// Next returns the next record, or io.EOF after the last; a malformed row (CSV syntax, field
// count, a canonical numeric column not a number) is an error naming the file and line.
func (rd *Reader) Next() (*Record, error) {
	rec, err := rd.cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("rows: %s:%d: %w", rd.file, pe.StartLine, pe.Err)
		}
		return nil, fmt.Errorf("rows: %s: %w", rd.file, err)
	}
	line, _ := rd.cr.FieldPos(0)
	r, err := newRecord(rd.h, rec, rd.file, line)
	if err != nil {
		return nil, fmt.Errorf("rows: %s:%d: %w", rd.file, line, err)
	}
	return r, nil
}

// ReadAll reads every record of r.
func ReadAll(r io.Reader, file string) ([]*Record, error) {
	rd, err := NewReader(r, file)
	if err != nil {
		return nil, err
	}
	var out []*Record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}

// ReadFile reads every record of the CSV file at path.
func ReadFile(path string) ([]*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rows: %w", err)
	}
	defer f.Close()
	return ReadAll(f, path)
}

// Records parses in-memory rows under the columns Header(rs), as if written and read
// back. A row whose canonical numeric column is not a number is an error naming its index.
func Records(rs []Row) ([]*Record, error) {
	h, _ := NewLayout(Header(rs)) // Header has no duplicates
	out := make([]*Record, len(rs))
	for i, row := range rs {
		text := make([]string, len(h.cols))
		for j, c := range h.cols {
			text[j] = row[c]
		}
		r, err := newRecord(h, text, "", 0)
		if err != nil {
			return nil, fmt.Errorf("rows: row %d: %w", i, err)
		}
		out[i] = r
	}
	return out, nil
}
