package dataset

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// heart_scale (data/heart_scale.libsvm, data/PROVENANCE.md): LIBSVM's copy of the UCI
// Statlog (Heart) data, 270 patients, 13 features scaled to [−1, 1], 120 labelled +1 and
// 150 labelled −1 (counted with `awk '{print $1}' | sort | uniq -c`; Statlog's documentation:
// 150 absent, 120 present).
func TestLIBSVMHeartScale(t *testing.T) {
	tb, err := LoadLIBSVM(filepath.Join("..", "..", "data", "heart_scale.libsvm"), AutoBase, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 270 || tb.Dim() != 13 || tb.Columns[0] != "f1" || tb.Columns[12] != "f13" {
		t.Fatalf("got n = %d, d = %d, columns %v; want 270 × 13, f1 … f13", tb.Len(), tb.Dim(), tb.Columns)
	}
	pos := 0
	for _, y := range tb.Y {
		switch y {
		case 1:
			pos++
		case -1:
		default:
			t.Fatalf("label %v not ±1", y)
		}
	}
	if pos != 120 {
		t.Errorf("%d labels +1, want 120", pos)
	}
	// Line 1: "+1 1:0.708333 2:1 … 10:-0.225806 12:1 13:-1" (index 11 absent: 0).
	want := []float64{0.708333, 1, 1, -0.320755, -0.105023, -1, 1, -0.419847, -1, -0.225806, 0, 1, -1}
	for j, v := range want {
		if tb.X[0][j] != v {
			t.Errorf("row 1, f%d = %v, want %v", j+1, tb.X[0][j], v)
		}
	}
	if tb.Line[269] != 270 || tb.X[269][10] != 0 || tb.X[269][0] != 0.583333 {
		t.Errorf("last row: line %d, %v", tb.Line[269], tb.X[269])
	}
	// The same file through the format dispatch, with d given.
	tb2, err := LoadLabelled(filepath.Join("..", "..", "data", "heart_scale.libsvm"), AutoFormat, OneBased, 13)
	if err != nil || tb2.Dim() != 13 || tb2.X[5][3] != tb.X[5][3] {
		t.Errorf("LoadLabelled: %v", err)
	}
}

func TestLIBSVMBasesAndLabels(t *testing.T) {
	body := "0 0:1.5 2:-2 # a comment\n\n1 1:3\n"
	// auto: index 0 is used, so the file is 0-based and d = 3.
	tb, err := ReadLIBSVM(strings.NewReader(body), "z.svm", AutoBase, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Dim() != 3 || tb.X[0][0] != 1.5 || tb.X[0][2] != -2 || tb.X[1][1] != 3 || tb.Y[0] != 0 || tb.Y[1] != 1 || tb.Line[1] != 3 {
		t.Errorf("0-based: got %+v", tb)
	}
	// 1-based with d larger than the largest index; a real target.
	tb, err = ReadLIBSVM(strings.NewReader("2.5e+01 1:1 3:2\n-7.25 2:4\n"), "r.svm", AutoBase, 5)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Dim() != 5 || tb.X[0][0] != 1 || tb.X[0][2] != 2 || tb.X[1][1] != 4 || tb.Y[0] != 25 || tb.Y[1] != -7.25 {
		t.Errorf("1-based: got %+v", tb)
	}
	// A 0-based file named as such, even without index 0.
	tb, err = ReadLIBSVM(strings.NewReader("1 1:1\n"), "b.svm", ZeroBase, 0)
	if err != nil || tb.Dim() != 2 || tb.X[0][1] != 1 {
		t.Errorf("explicit 0-based: got %+v, %v", tb, err)
	}
}

func TestLIBSVMErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		base       IndexBase
		d          int
		row        int
		col        string
	}{
		{"empty", "", AutoBase, 0, 1, ""},
		{"comments only", "# x\n\n", AutoBase, 0, 1, ""},
		{"label not a number", "+1 1:1\nyes 1:1\n", AutoBase, 0, 2, "label"},
		{"label missing", "1:0.5 2:1\n", AutoBase, 0, 1, "label"},
		{"label nan", "NaN 1:1\n", AutoBase, 0, 1, "label"},
		{"no colon", "1 1:1\n1 3\n", AutoBase, 0, 2, ""},
		{"bad index", "1 a:1\n", AutoBase, 0, 1, ""},
		{"negative index", "1 -1:1\n", AutoBase, 0, 1, ""},
		{"decreasing", "1 1:1\n-1 3:1 2:1\n", AutoBase, 0, 2, "index 2"},
		{"repeated", "1 2:1 2:1\n", AutoBase, 0, 1, "index 2"},
		{"bad value", "1 1:1\n1 1:x\n", AutoBase, 0, 2, "index 1"},
		{"inf value", "1 4:Inf\n", AutoBase, 0, 1, "index 4"},
		{"zero in 1-based", "1 0:1\n", OneBased, 0, 1, "index 0"},
		{"beyond d", "1 1:1\n1 2:1 9:1\n", AutoBase, 4, 2, "index 9"},
		{"qid", "1 qid:3 1:1\n", AutoBase, 0, 1, ""},
		{"no features", "1\n-1\n", AutoBase, 0, 1, ""},
	} {
		_, err := ReadLIBSVM(strings.NewReader(tc.body), "f.svm", tc.base, tc.d)
		var de *Error
		if !errors.As(err, &de) {
			t.Errorf("%s: got %v, want a *dataset.Error", tc.name, err)
			continue
		}
		if de.File != "f.svm" || de.Row != tc.row || de.Column != tc.col || !errors.Is(err, ErrBadValue) {
			t.Errorf("%s: got file %q row %d column %q (%v), want f.svm row %d column %q", tc.name, de.File, de.Row, de.Column, err, tc.row, tc.col)
		}
		if !strings.HasPrefix(err.Error(), "f.svm: row ") {
			t.Errorf("%s: message %q does not start with the file and line", tc.name, err)
		}
	}
	if _, err := ReadLIBSVM(strings.NewReader("1 1:1\n"), "f.svm", "2", 0); err == nil {
		t.Errorf("base 2: got nil error")
	}
	if _, err := LoadLIBSVM(filepath.Join(t.TempDir(), "missing"), AutoBase, 0); err == nil {
		t.Errorf("missing file: got nil error")
	}
}

func TestFormatResolve(t *testing.T) {
	for path, want := range map[string]Format{"a.csv": CSV, "a.CSV": CSV, "a.libsvm": LIBSVM, "heart_scale": LIBSVM, "a.txt": LIBSVM} {
		if got := AutoFormat.Resolve(path); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", path, got, want)
		}
	}
	if CSV.Resolve("a.libsvm") != CSV || Format("xml").Valid() || !Format("").Valid() {
		t.Errorf("explicit formats")
	}
}
