package algorithms_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"expmech/problems"
)

// zerothOrder is a complete zeroth-order mechanism; CALL is replaced by the oracle call
// under test.
const zerothOrder = `package zo

import (
	"context"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

type M struct{}

var _ algorithms.Mechanism = M{}

func (M) Name() string         { return "zo" }
func (M) Needs() problems.Need { return problems.NeedValues }
func (M) Plan(_ algorithms.Env, _ problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return algorithms.Plan{Record: algorithms.Empty(), Budget: b}, nil
}
func (M) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	x := make([]float64, o.Dim())
	CALL
	return algorithms.Output{X: x, Record: algorithms.Empty()}, nil
}
`

// TestZerothOrderCannotTakeGradient type-checks a zeroth-order mechanism against the
// compiled contracts (export data from `go list -export`): a value query compiles, a
// gradient query or a read of the data does not.
func TestZerothOrderCannotTakeGradient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list -export")
	}
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}",
		"expmech/algorithms", "expmech/problems", "context", "math/rand/v2").Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	export := map[string]string{}
	for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p, f, ok := strings.Cut(ln, "="); ok && f != "" {
			export[p] = f
		}
	}
	check := func(call string) error {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "zo.go", strings.Replace(zerothOrder, "CALL", call, 1), 0)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			fn, ok := export[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(fn)
		})
		conf := types.Config{Importer: imp}
		_, err = conf.Check("zo", fset, []*ast.File{f}, nil)
		return err
	}
	if err := check("_ = o.Value(0, x)"); err != nil {
		t.Fatalf("a value query must compile: %v", err)
	}
	for _, tc := range []struct{ call, want string }{
		{"o.Grad(x, 0, x)", "Grad"},
		{"_ = o.Structure()", "Structure"},
	} {
		err := check(tc.call)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s in a zeroth-order Run: got %v, want a compile error naming %s", tc.call, err, tc.want)
		}
	}
}

// valueOnly is a problem with every capability, to show that views hide them.
type valueOnly struct{}

func (valueOnly) Len() int                               { return 2 }
func (valueOnly) Dim() int                               { return 1 }
func (valueOnly) Value(i int, x []float64) float64       { return x[0] }
func (valueOnly) Grad(dst []float64, i int, x []float64) { dst[0] = 1 }
func (valueOnly) Constants() problems.Constants          { return problems.Constants{N: 2, D: 1} }

// TestOracleViews: the runner's views carry exactly the declared capability, so a type
// assertion cannot widen them, and queries through any view are counted on the counter.
func TestOracleViews(t *testing.T) {
	c := problems.NewCounter(valueOnly{})
	x, g := []float64{1}, []float64{0}
	v := c.Oracle(problems.NeedValues)
	if _, err := problems.Gradients(v); !errors.Is(err, problems.ErrUndeclared) {
		t.Errorf("gradients from a value view: got %v, want ErrUndeclared", err)
	}
	if _, err := problems.Data(v); !errors.Is(err, problems.ErrUndeclared) {
		t.Errorf("data from a value view: got %v, want ErrUndeclared", err)
	}
	gv, err := problems.Gradients(c.Oracle(problems.NeedGradients))
	if err != nil {
		t.Fatalf("gradient view: %v", err)
	}
	if _, err := problems.Data(gv); !errors.Is(err, problems.ErrUndeclared) {
		t.Errorf("data from a gradient view: got %v, want ErrUndeclared", err)
	}
	if _, err := problems.Data(c.Oracle(problems.NeedData)); err != nil {
		t.Errorf("data view: %v", err)
	}
	v.Value(0, x)
	gv.Value(1, x)
	gv.Grad(g, 0, x)
	if c.ValueQueries != 2 || c.GradientQueries != 1 {
		t.Errorf("counts through views: got (%d, %d), want (2, 1)", c.ValueQueries, c.GradientQueries)
	}
}
