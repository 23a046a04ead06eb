package dataset

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
)

// LabelColumn is the name of the label column of glm/lowrank data (DESIGN.md "Data files").
const LabelColumn = "y"

// ErrBadValue is wrapped by every validation error so callers can test errors.Is.
var ErrBadValue = errors.New("bad data value")

// Error locates a problem in a data file: Row is the 1-based line (the header is row 1),
// Column the header name ("" for the whole row).
type Error struct {
	File   string
	Row    int
	Column string
	Err    error
}

func (e *Error) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("%s: row %d: %v", e.File, e.Row, e.Err)
	}
	return fmt.Sprintf("%s: row %d, column %q: %v", e.File, e.Row, e.Column, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Table is a loaded data file: X[i] the coordinate columns of example i (in header order,
// the label excluded), Y[i] its label (Y nil without one), Line[i] its file line (errors).
type Table struct {
	Path    string
	Columns []string
	X       [][]float64
	Y       []float64
	Line    []int
}

// Len is the number of examples.
func (t *Table) Len() int { return len(t.X) }

// Dim is the number of coordinate columns.
func (t *Table) Dim() int { return len(t.Columns) }

// Load reads a CSV file of finite numbers. With label its column "y" is required and
// becomes Y; without, a "y" column is an error (a glm file given to a coordinate-only kind).
func Load(path string, label bool) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	return Read(f, path, label)
}

// Read is Load on an open reader; name is used in errors.
func Read(r io.Reader, name string, label bool) (*Table, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // field counts are checked below, with the row named
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &Error{File: name, Row: 1, Err: fmt.Errorf("%w: empty file (want a header row)", ErrBadValue)}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	t := &Table{Path: name}
	yCol := -1
	seen := map[string]bool{}
	for j, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, &Error{File: name, Row: 1, Column: fmt.Sprintf("#%d", j+1), Err: fmt.Errorf("%w: empty column name", ErrBadValue)}
		}
		if seen[h] {
			return nil, &Error{File: name, Row: 1, Column: h, Err: fmt.Errorf("%w: duplicate column name", ErrBadValue)}
		}
		seen[h] = true
		if h == LabelColumn {
			if !label {
				return nil, &Error{File: name, Row: 1, Column: h, Err: fmt.Errorf("%w: a label column %q is only allowed for glm/lowrank", ErrBadValue, LabelColumn)}
			}
			yCol = j
			continue
		}
		t.Columns = append(t.Columns, h)
	}
	if label && yCol < 0 {
		return nil, &Error{File: name, Row: 1, Column: LabelColumn, Err: fmt.Errorf("%w: missing label column %q", ErrBadValue, LabelColumn)}
	}
	if len(t.Columns) == 0 {
		return nil, &Error{File: name, Row: 1, Err: fmt.Errorf("%w: no coordinate columns", ErrBadValue)}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, &Error{File: name, Row: line, Err: fmt.Errorf("%w: %d fields, want %d (the header's)", ErrBadValue, len(rec), len(header))}
		}
		x := make([]float64, 0, len(t.Columns))
		var y float64
		for j, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &Error{File: name, Row: line, Column: strings.TrimSpace(header[j]),
					Err: fmt.Errorf("%w: %q is not a finite number", ErrBadValue, s)}
			}
			if j == yCol {
				y = v
			} else {
				x = append(x, v)
			}
		}
		t.X = append(t.X, x)
		t.Line = append(t.Line, line)
		if label {
			t.Y = append(t.Y, y)
		}
	}
	if len(t.X) == 0 {
		return nil, &Error{File: name, Row: 2, Err: fmt.Errorf("%w: no data rows", ErrBadValue)}
	}
	return t, nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: name, Row: pe.Line, Column: fmt.Sprintf("#%d", pe.Column), Err: fmt.Errorf("%w: %v", ErrBadValue, pe.Err)}
	}
	return fmt.Errorf("dataset: %s: %w", name, err)
}

// Split returns the first n examples (n ≤ 0: all) and the rest, sharing storage with t.
func (t *Table) Split(n int) (head, rest *Table, err error) {
	if n <= 0 {
		n = t.Len()
	}
	if n > t.Len() {
		return nil, nil, fmt.Errorf("dataset: %s: n = %d but the file has only %d data rows", t.Path, n, t.Len())
	}
	cut := func(lo, hi int) *Table {
		s := &Table{Path: t.Path, Columns: t.Columns, X: t.X[lo:hi], Line: t.Line[lo:hi]}
		if t.Y != nil {
			s.Y = t.Y[lo:hi]
		}
		return s
	}
	return cut(0, n), cut(n, t.Len()), nil
}

// Rescale says how rows whose ℓ2 norm exceeds the generator's bound are handled.
type Rescale string

const (
	// Refuse (the default) rejects a row whose norm exceeds the bound: the stated G_f, G_Δ
	// hold for the file as given.
	Refuse Rescale = "none"
	// Clip projects each offending row onto the ball of the bound: row-wise and data
	// independent, so the neighbouring universe (all rows of norm ≤ bound) is unchanged.
	Clip Rescale = "clip"
	// Scale divides every row by max_i ‖row_i‖ / bound when that exceeds 1: a factor of the
	// whole file, non-private, so the constants it enforces are Measured and no row on such
	// data is certified (Clip is the certified choice).
	Scale Rescale = "scale"
)

// Check is nil for a known mode ("" is Refuse), else the rescale key's error.
func (r Rescale) Check() error {
	if slices.Contains([]Rescale{"", Refuse, Clip, Scale}, r) {
		return nil
	}
	return fmt.Errorf("rescale: %q, want none, clip or scale", string(r))
}

// Bound enforces ‖row‖₂ ≤ bound on every table's rows by mode (one Scale factor for all),
// with tol a relative slack for rounding in the file (1e-12).
func Bound(mode Rescale, bound, tol float64, ts ...*Table) error {
	if mode.Check() != nil {
		return fmt.Errorf("dataset: unknown rescale mode %q (want none, clip or scale)", mode)
	}
	lim := bound * (1 + tol)
	switch mode {
	case "", Refuse:
		for _, t := range ts {
			for i, x := range t.X {
				if nr := norm(x); nr > lim {
					return &Error{File: t.Path, Row: t.Line[i], Err: fmt.Errorf("%w: row norm %.6g exceeds the bound %.6g (set rescale: clip or scale)", ErrBadValue, nr, bound)}
				}
			}
		}
	case Clip:
		for _, t := range ts {
			for _, x := range t.X {
				if nr := norm(x); nr > bound {
					floats.Scale(bound/nr, x)
				}
			}
		}
	case Scale:
		m := 0.0
		for _, t := range ts {
			for _, x := range t.X {
				m = math.Max(m, norm(x))
			}
		}
		if m > bound {
			for _, t := range ts {
				for _, x := range t.X {
					floats.Scale(bound/m, x)
				}
			}
		}
	}
	return nil
}

// Labels checks that every label is in allowed (e.g. {−1, +1} for logistic/hinge).
func Labels(t *Table, allowed ...float64) error {
	for i, y := range t.Y {
		if !slices.Contains(allowed, y) {
			return &Error{File: t.Path, Row: t.Line[i], Column: LabelColumn, Err: fmt.Errorf("%w: label %v not in %v", ErrBadValue, y, allowed)}
		}
	}
	return nil
}

func norm(x []float64) float64 { return math.Sqrt(problems.SquaredNorm(x)) }

// Prepare loads a CSV file for a generator (label as for Load), splits it at n (Split),
// checks wantD > 0 against its columns (row 1) and enforces bound > 0 by mode (Bound).
func Prepare(path string, label bool, n, wantD int, bound float64, mode Rescale) (train, rest *Table, err error) {
	if mode.Check() != nil {
		return nil, nil, fmt.Errorf("dataset: rescale: unknown mode %q (want none, clip or scale)", mode)
	}
	t, err := Load(path, label)
	if err != nil {
		return nil, nil, err
	}
	if wantD > 0 && wantD != t.Dim() {
		return nil, nil, &Error{File: path, Row: 1, Err: fmt.Errorf("%w: %d coordinate columns, want d = %d", ErrBadValue, t.Dim(), wantD)}
	}
	train, rest, err = t.Split(n)
	if err != nil {
		return nil, nil, err
	}
	if bound > 0 {
		if err := Bound(mode, bound, 1e-12, train, rest); err != nil {
			return nil, nil, err
		}
	}
	return train, rest, nil
}

// IndexBase says how the feature indices of a LIBSVM file are numbered.
type IndexBase string

const (
	// AutoBase is 0-based if any line uses index 0, else 1-based (scikit-learn's
	// zero_based="auto"): a 0-based file never using index 0 is read shifted by one.
	AutoBase IndexBase = "auto"
	OneBased IndexBase = "1" // LIBSVM's own convention (heart_scale, svm-scale output)
	ZeroBase IndexBase = "0" // svmlight files written 0-based
)

// Valid reports whether b is a known base ("" means AutoBase).
func (b IndexBase) Valid() bool {
	return slices.Contains([]IndexBase{"", AutoBase, OneBased, ZeroBase}, b)
}

// LoadLIBSVM reads a LIBSVM/svmlight file (DESIGN.md "Data files"): "label index:value …"
// lines, indices strictly increasing, absent features 0, "#" comments and blank lines
// skipped, any finite label. d > 0 fixes the dimension (a larger index is an error), d = 0
// takes the largest index. Rows are stored dense in columns "f1" … "fd" (1-based, as LIBSVM
// numbers them, whatever the base). Every error names the file and line.
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

// libsvmFile is a LIBSVM file as read, before table fixes its base and dimension.
type libsvmFile struct {
	name    string
	rows    []sparseRow
	ys      []float64
	lines   []int
	sawZero bool
	maxIdx  int // −1 when none
}

func (f *libsvmFile) bad(line int, col string, format string, args ...any) error {
	return &Error{File: f.name, Row: line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{ErrBadValue}, args...)...)}
}

// scanLIBSVM reads every example of r; a file without one is an error.
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

// parseLine appends the example of one line's fields (see LoadLIBSVM).
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

// table fixes the index base and the dimension (d > 0, or the largest index), rows dense.
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
func (f Format) Valid() bool { return slices.Contains([]Format{"", AutoFormat, CSV, LIBSVM}, f) }

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

// LoadLabelled reads a labelled data file in format f (CSV with column "y", or LIBSVM with
// base); d > 0 fixes the number of features, refusing another at its file and line.
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
