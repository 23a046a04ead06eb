package rows

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestReaderRecords(t *testing.T) {
	t.Parallel()
	rs := []Row{
		{ColCell: "c0", ColAlgorithm: "expmech", ColTrial: "0", ColStatus: string(StatusOK), ColN: "100", ColEpsilon: "0.5",
			ColDelta: "1e-05", ColExcessEmpiricalRisk: "inf", ColNotes: "a,\"quoted\"\nnote", "radius": "2", "label": "x"},
		{ColCell: "c1", ColAlgorithm: "noisy-gd", ColTrial: "1", ColStatus: string(StatusError), ColError: "boom", ColN: "200"},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, nil, rs); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(&buf, "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.Layout().Columns(); !slices.Equal(got, Header(rs)) {
		t.Fatalf("layout: got %v, want %v", got, Header(rs))
	}
	var got []*Record
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 2 {
		t.Fatalf("got %d records, want 2", len(got))
	}
	r0, r1 := got[0], got[1]
	// The first record's notes span two lines, so the second record starts on line 4.
	if r0.Line != 2 || r1.Line != 4 || r0.File != "r.csv" {
		t.Errorf("lines: got %s:%d and %d, want r.csv:2 and 4", r0.File, r0.Line, r1.Line)
	}
	if v, ok := r0.Float(ColEpsilon); !ok || v != 0.5 {
		t.Errorf("epsilon: got %v, %v, want 0.5", v, ok)
	}
	if v, ok := r0.Float(ColExcessEmpiricalRisk); !ok || !math.IsInf(v, 1) {
		t.Errorf("inf: got %v, %v, want +Inf", v, ok)
	}
	if v, ok := r0.Float("radius"); !ok || v != 2 {
		t.Errorf("extra numeric column: got %v, %v, want 2", v, ok)
	}
	if _, ok := r0.Float("label"); ok || r0.Text("label") != "x" {
		t.Errorf("extra text column: got number, want text x")
	}
	if _, ok := r1.Float(ColEpsilon); ok || r1.Text(ColEpsilon) != "" {
		t.Errorf("empty column: got a number, want missing")
	}
	if _, ok := r0.Float("no_such_column"); ok || r0.Text("no_such_column") != "" {
		t.Errorf("absent column: got a value, want missing")
	}
	if r0.Text(ColNotes) != "a,\"quoted\"\nnote" {
		t.Errorf("notes: got %q", r0.Text(ColNotes))
	}
	if !r0.OK() || r1.OK() {
		t.Errorf("OK: got %v %v, want true false", r0.OK(), r1.OK())
	}
	if k := r1.Key(); k != (Key{Cell: "c1", Algorithm: "noisy-gd", Trial: "1"}) {
		t.Errorf("key: got %+v", k)
	}
	id := r0.Identity()
	if len(id) != len(IdentityColumns()) || id[4] != (KV{ColN, "100"}) || id[8] != (KV{ColEpsilon, "0.5"}) {
		t.Errorf("identity: got %v", id)
	}
	mem, err := Records(rs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Header(rs) {
		if mem[0].Text(c) != r0.Text(c) || mem[1].Text(c) != r1.Text(c) {
			t.Errorf("Records and Reader disagree on %s", c)
		}
	}
}

func TestReaderMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "f.csv: empty file"},
		{"duplicate column", "cell,cell\n", "f.csv:1: duplicate column \"cell\""},
		{"field count", "cell,n\nc0,1\nc1\n", "f.csv:3:"},
		{"not a number", "cell,epsilon\nc0,0.5\nc1,half\n", "f.csv:3: column epsilon: \"half\" is not a number"},
		{"bare quote", "cell,n\nc0,1\nc\"1,2\n", "f.csv:3:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadAll(strings.NewReader(tc.src), "f.csv")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := Records([]Row{{ColCell: "c0"}, {ColN: "many"}}); err == nil || !strings.Contains(err.Error(), "row 1: column n") {
		t.Errorf("Records: got %v, want an error naming row 1 and column n", err)
	}
}

func TestColumnsAndUnits(t *testing.T) {
	t.Parallel()
	text := []string{ColExperiment, ColCell, ColAlgorithm, ColSeed, ColProblemSeed, ColNeighbours, ColProblem, ColLossKind, ColDomain, ColTask,
		ColGuarantee, ColStatus, ColError}
	for _, c := range Columns() {
		if IsNumeric(c) == slices.Contains(text, c) {
			t.Errorf("%s: IsNumeric %v, want %v", c, IsNumeric(c), !slices.Contains(text, c))
		}
	}
	for _, c := range IdentityColumns() {
		if !slices.Contains(Columns(), c) {
			t.Errorf("identity column %s is not a canonical column", c)
		}
	}
	if Unit(ColEpsilon) != "1" || Unit(ColValueQueries) != "queries" || Unit(ColWallSeconds) != "s" || Unit(ColCell) != "" {
		t.Errorf("units: got ε %q, queries %q, wall %q, cell %q", Unit(ColEpsilon), Unit(ColValueQueries), Unit(ColWallSeconds), Unit(ColCell))
	}
}

// Key identifies a row within an experiment: (cell, algorithm, trial).
type Key struct {
	Cell, Algorithm, Trial string
}

// Key is the row's (cell, algorithm, trial).
func (r *Record) Key() Key {
	return Key{Cell: r.Text(ColCell), Algorithm: r.Text(ColAlgorithm), Trial: r.Text(ColTrial)}
}
