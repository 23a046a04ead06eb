package dataset

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// IndexBase says how the feature indices of a LIBSVM file are numbered.
type IndexBase string

const (
	// AutoBase is 0-based if any line uses index 0, else 1-based (the rule of
	// scikit-learn's load_svmlight_file, zero_based="auto"). A 0-based file that never
	// uses index 0 is then read shifted by one: name the base when it matters.
	AutoBase IndexBase = "auto"
	OneBased IndexBase = "1" // LIBSVM's own convention (heart_scale, svm-scale output)
	ZeroBase IndexBase = "0" // svmlight files written 0-based
)

// Valid reports whether b is a known base ("" means AutoBase).
func (b IndexBase) Valid() bool {
	switch b {
	case "", AutoBase, OneBased, ZeroBase:
		return true
	}
	return false
}

// LoadLIBSVM reads a LIBSVM/svmlight file (DESIGN.md "Data files"): one example a line,
// "label index:value index:value …", indices strictly increasing, absent features 0, and
// "#" starting a comment to the end of the line. Blank lines are skipped. The label is any
// finite number (±1 or 0/1 for classification, a real target for regression); d > 0 fixes
// the dimension (an index beyond it is an error), d = 0 takes the largest index used. The
// sparse rows are stored dense: n·d floats. Columns are named "f1" … "fd" (1-based, as
// LIBSVM numbers them, whatever the file's base). Every error names the file and line.
func LoadLIBSVM(path string, base IndexBase, d int) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	return ReadLIBSVM(f, path, base, d)
}

type sparseRow struct {
	idx []int
	val []float64
}

// ReadLIBSVM is LoadLIBSVM on an open reader; name is used in errors.
func ReadLIBSVM(r io.Reader, name string, base IndexBase, d int) (*Table, error) {
	if !base.Valid() {
		return nil, fmt.Errorf("dataset: %s: index base %q, want auto, 0 or 1", name, base)
	}
	if d < 0 {
		return nil, fmt.Errorf("dataset: %s: d = %d, want ≥ 0", name, d)
	}
	f, err := scanLIBSVM(r, name, base)
	if err != nil {
		return nil, err
	}
	return f.table(base, d)
}

// libsvmFile is a LIBSVM file as read, before its index base and dimension are fixed:
// the sparse rows with their labels and line numbers, whether index 0 occurs, and the
// largest index (−1 when none).
type libsvmFile struct {
	name    string
	rows    []sparseRow
	ys      []float64
	lines   []int
	sawZero bool
	maxIdx  int
}

// bad is the error for a bad value at line and column col of the file.
func (f *libsvmFile) bad(line int, col string, format string, args ...any) error {
	return &Error{File: f.name, Row: line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{ErrBadValue}, args...)...)}
}

// scanLIBSVM reads every example of r (comments and blank lines skipped); a file without
// one is an error.
func scanLIBSVM(r io.Reader, name string, base IndexBase) (*libsvmFile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	f := &libsvmFile{name: name, maxIdx: -1}
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if err := f.parseLine(line, fields, base); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	if len(f.rows) == 0 {
		return nil, &Error{File: name, Row: 1, Err: fmt.Errorf("%w: no examples", ErrBadValue)}
	}
	return f, nil
}

// parseLine appends the example of one non-blank line, "label index:value …" split into
// fields: a finite label, then strictly increasing non-negative indices with finite
// values (no index 0 in a 1-based file, no svmlight query ids).
func (f *libsvmFile) parseLine(line int, fields []string, base IndexBase) error {
	y, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || math.IsNaN(y) || math.IsInf(y, 0) || strings.Contains(fields[0], ":") {
		return f.bad(line, "label", "%q is not a finite number (a line starts with its label)", fields[0])
	}
	var row sparseRow
	prev := -1
	for _, tok := range fields[1:] {
		k, v, ok := strings.Cut(tok, ":")
		if !ok {
			return f.bad(line, "", "%q is not index:value", tok)
		}
		if k == "qid" {
			return f.bad(line, "", "%q: query ids (svmlight ranking files) are not supported", tok)
		}
		idx, err := strconv.Atoi(k)
		if err != nil || idx < 0 {
			return f.bad(line, "", "index %q is not a non-negative integer", k)
		}
		if idx <= prev {
			return f.bad(line, "index "+k, "indices must be strictly increasing (after %d)", prev)
		}
		prev = idx
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return f.bad(line, "index "+k, "%q is not a finite number", v)
		}
		if idx == 0 {
			if base == OneBased {
				return f.bad(line, "index 0", "index 0 in a 1-based file")
			}
			f.sawZero = true
		}
		f.maxIdx = max(f.maxIdx, idx)
		row.idx = append(row.idx, idx)
		row.val = append(row.val, x)
	}
	f.rows = append(f.rows, row)
	f.ys = append(f.ys, y)
	f.lines = append(f.lines, line)
	return nil
}

// table fixes the index base (1-based unless the base says 0 or, under auto, index 0
// occurs) and the dimension (d > 0, or the largest index), and stores the rows dense.
func (f *libsvmFile) table(base IndexBase, d int) (*Table, error) {
	shift := 1 // file index k is column k − shift
	if base == ZeroBase || (base != OneBased && f.sawZero) {
		shift = 0
	}
	dim := f.maxIdx + 1 - shift
	if d > 0 {
		if dim > d {
			for i, row := range f.rows {
				if n := len(row.idx); n > 0 && row.idx[n-1]-shift >= d {
					return nil, f.bad(f.lines[i], fmt.Sprintf("index %d", row.idx[n-1]), "beyond d = %d", d)
				}
			}
		}
		dim = d
	}
	if dim < 1 {
		return nil, &Error{File: f.name, Row: f.lines[0], Err: fmt.Errorf("%w: no feature index in the file (give d)", ErrBadValue)}
	}
	t := &Table{Path: f.name, Y: f.ys, Line: f.lines, X: make([][]float64, len(f.rows))}
	for j := range dim {
		t.Columns = append(t.Columns, "f"+strconv.Itoa(j+1))
	}
	for i, row := range f.rows {
		x := make([]float64, dim)
		for k, idx := range row.idx {
			x[idx-shift] = row.val[k]
		}
		t.X[i] = x
	}
	return t, nil
}

// Format names a data file's format.
type Format string

const (
	AutoFormat Format = "auto"   // by extension: .csv is CSV, anything else LIBSVM
	CSV        Format = "csv"    // header row, label column "y" (Load)
	LIBSVM     Format = "libsvm" // sparse "label index:value …" (LoadLIBSVM)
)

// Valid reports whether f is a known format ("" means AutoFormat).
func (f Format) Valid() bool {
	switch f {
	case "", AutoFormat, CSV, LIBSVM:
		return true
	}
	return false
}

// Resolve returns the format of path: f itself unless it is auto.
func (f Format) Resolve(path string) Format {
	if f != "" && f != AutoFormat {
		return f
	}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return CSV
	}
	return LIBSVM
}

// LoadLabelled reads a labelled data file in the given format: a CSV file must have the
// label column "y"; a LIBSVM file always has its labels. d > 0 fixes the number of
// features (a CSV header of another width, or a LIBSVM index beyond d, is an error naming
// the file and line); base applies to LIBSVM only.
func LoadLabelled(path string, f Format, base IndexBase, d int) (*Table, error) {
	switch f.Resolve(path) {
	case CSV:
		t, err := Load(path, true)
		if err == nil && d > 0 && t.Dim() != d {
			return nil, &Error{File: path, Row: 1, Err: fmt.Errorf("%w: %d feature columns, want d = %d", ErrBadValue, t.Dim(), d)}
		}
		return t, err
	case LIBSVM:
		return LoadLIBSVM(path, base, d)
	}
	return nil, fmt.Errorf("dataset: %s: format %q, want auto, csv or libsvm", path, f)
}
