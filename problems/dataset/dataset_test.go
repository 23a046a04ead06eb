package dataset

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		label      bool
		row        int
		col        string
	}{
		{"empty", "", false, 1, ""},
		{"no rows", "a,b\n", false, 2, ""},
		{"nan", "a,b\n1,2\n3,NaN\n", false, 3, "b"},
		{"inf", "a,b\n1,+Inf\n", false, 2, "b"},
		{"text", "a,b\n1,x\n", false, 2, "b"},
		{"empty cell", "a,b\n1,\n", false, 2, "b"},
		{"ragged", "a,b\n1,2\n1,2,3\n", false, 3, ""},
		{"short", "a,b\n1\n", false, 2, ""},
		{"duplicate", "a,a\n1,2\n", false, 1, "a"},
		{"blank name", "a, \n1,2\n", false, 1, "#2"},
		{"label not allowed", "a,y\n1,2\n", false, 1, "y"},
		{"label missing", "a,b\n1,2\n", true, 1, "y"},
		{"only label", "y\n1\n", true, 1, ""},
		{"comment keeps line numbers", "# note\na,b\n1,2\n1,oops\n", false, 4, "b"},
	} {
		_, err := Read(strings.NewReader(tc.body), "f.csv", tc.label)
		var de *Error
		if !errors.As(err, &de) {
			t.Errorf("%s: got %v, want a *dataset.Error", tc.name, err)
			continue
		}
		if de.File != "f.csv" || de.Row != tc.row || de.Column != tc.col || !errors.Is(err, ErrBadValue) {
			t.Errorf("%s: got file %q row %d column %q (%v), want f.csv row %d column %q", tc.name, de.File, de.Row, de.Column, err, tc.row, tc.col)
		}
	}
}

func TestReadLabelAndSplit(t *testing.T) {
	tb, err := Read(strings.NewReader("a, y ,b\n1,-1,2\n3,1,4\n5,1,6\n"), "g.csv", true)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Dim() != 2 || tb.Len() != 3 || tb.Y[0] != -1 || tb.X[2][1] != 6 || tb.Line[2] != 4 {
		t.Fatalf("got %+v", tb)
	}
	h, r, err := tb.Split(2)
	if err != nil || h.Len() != 2 || r.Len() != 1 || r.Y[0] != 1 {
		t.Errorf("Split(2): %v %v %v", h, r, err)
	}
	if _, _, err := tb.Split(4); err == nil || !strings.Contains(err.Error(), "only 3") {
		t.Errorf("Split(4): got %v, want an error", err)
	}
	if err := Labels(tb, -1, 1); err != nil {
		t.Errorf("Labels: %v", err)
	}
	tb.Y[1] = 0
	if err := Labels(tb, -1, 1); err == nil || !strings.Contains(err.Error(), "row 3") {
		t.Errorf("label 0: got %v, want an error naming row 3", err)
	}
}

func TestBound(t *testing.T) {
	mk := func() *Table {
		return &Table{Path: "h.csv", X: [][]float64{{3, 4}, {0.3, 0.4}}, Line: []int{2, 3}}
	}
	if err := Bound(Refuse, 1, 1e-12, mk()); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("refuse: got %v, want an error naming row 2", err)
	}
	tb := mk()
	if err := Bound(Clip, 1, 0, tb); err != nil || math.Abs(tb.X[0][0]-0.6) > 1e-15 || tb.X[1][0] != 0.3 {
		t.Errorf("clip: got %v, %v", tb.X, err)
	}
	tb, rest := mk(), &Table{Path: "h.csv", X: [][]float64{{0, 10}}, Line: []int{4}}
	if err := Bound(Scale, 1, 0, tb, rest); err != nil || math.Abs(rest.X[0][1]-1) > 1e-15 || math.Abs(tb.X[0][0]-0.3) > 1e-15 {
		t.Errorf("scale by the max norm 10 over both tables: got %v %v, %v", tb.X, rest.X, err)
	}
	if err := Bound("shrink", 1, 0, mk()); err == nil {
		t.Errorf("unknown mode: got nil error")
	}
}

func TestPrepare(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.csv")
	os.WriteFile(p, []byte("a,b\n0.1,0.2\n0.3,0.4\n0.5,0.6\n"), 0o644)
	tr, rest, err := Prepare(p, false, 2, 2, 1, Refuse)
	if err != nil || tr.Len() != 2 || rest.Len() != 1 {
		t.Fatalf("Prepare: %v %v %v", tr, rest, err)
	}
	if _, _, err := Prepare(p, false, 0, 3, 1, Refuse); err == nil || !strings.Contains(err.Error(), "d = 3") {
		t.Errorf("d mismatch: got %v", err)
	}
	if _, _, err := Prepare(filepath.Join(t.TempDir(), "missing.csv"), false, 0, 0, 0, Refuse); err == nil {
		t.Errorf("missing file: got nil error")
	}
}
