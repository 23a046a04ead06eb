package rows

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Key identifies a row within an experiment: (cell, algorithm, trial).
type Key struct {
	Cell, Algorithm, Trial string
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

// Record is one parsed row: each column's text as written and, parsed once, its number
// (NaN when the text is empty or not a number). File and Line locate it (Line is 1-based,
// 0 for a record built in memory).
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

// Key is the row's (cell, algorithm, trial).
func (r *Record) Key() Key {
	return Key{Cell: r.Text(ColCell), Algorithm: r.Text(ColAlgorithm), Trial: r.Text(ColTrial)}
}

// OK reports whether the row's status is StatusOK.
func (r *Record) OK() bool { return r.Status() == StatusOK }

// Status is the row's status column as written (the Reader does not check its value; see
// ParseStatus).
func (r *Record) Status() Status { return Status(r.Text(ColStatus)) }

// Guarantee is the row's guarantee column as written (see ParseGuarantee).
func (r *Record) Guarantee() Guarantee { return Guarantee(r.Text(ColGuarantee)) }

// Tuning is the row's tuning column, DefaultTuning when it is empty or absent (an untuned
// mechanism's row).
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

// Next returns the next record, or io.EOF after the last. A malformed row (a CSV syntax
// error, a wrong number of fields, a canonical numeric column that is not a number) is an
// error naming the file and line.
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
