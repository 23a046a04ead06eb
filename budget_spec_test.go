package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBudgetSpecErrors: the spec's ε and δ are checked by algorithms.Budget.Validate (wired
// by the runner's Schema), and a bad one is reported with exit status 2 as the invalid
// corpus's "# want:" line says, naming the file and the key.
func TestBudgetSpecErrors(t *testing.T) {
	for _, name := range []string{"eps-zero", "eps-negative-swept", "nan", "delta-one", "delta-negative"} {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join("experiments", "testdata", "invalid", name+".yaml")
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(b), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("%s: no '# want:' line", f)
			}
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			err = run(context.Background(), []string{"-exp", f, "-out", filepath.Join(dir, "r"), "-figures", filepath.Join(dir, "f")}, &stdout, &stderr)
			if code := report(err, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2 (err %v)", code, err)
			}
			if msg := stderr.String(); !strings.Contains(msg, f+":") || !strings.Contains(msg, want) {
				t.Errorf("stderr %q: want the file and %q", msg, want)
			}
		})
	}
}
