package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/experiments"
)

// TestExpInCurrentFolder: `-exp my.yaml` finds the spec file in the current folder (a
// researcher's own copy), while a bare name still finds experiments/NAME.yaml or the
// built-in spec, and a name found nowhere says where it looked (exit 2).
func TestExpInCurrentFolder(t *testing.T) {
	b, err := os.ReadFile(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-exp", "my.yaml", "-dry-run", "-out", "res"}, &stdout, &stderr); err != nil {
		t.Fatalf("-exp my.yaml in the current folder: %v", err)
	}
	if !strings.Contains(stdout.String(), "plan.csv") {
		t.Errorf("stdout %q, want the plan written", stdout.String())
	}
	// No experiments/ here: the bare name is the built-in spec.
	stdout.Reset()
	if err := run(context.Background(), []string{"-exp", "quick", "-quick", "-dry-run", "-out", "res"}, &stdout, &stderr); err != nil {
		t.Fatalf("-exp quick away from the tree: %v", err)
	}
	err = run(context.Background(), []string{"-exp", "nosuch.yaml"}, &stdout, &stderr)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "./nosuch.yaml") || !strings.Contains(err.Error(), "experiments/nosuch.yaml") {
		t.Errorf("-exp nosuch.yaml: got %v, want a usage error naming both places", err)
	}
}

// TestListExperiments: -list names every built-in experiment, so that a cluster user with
// only the binary can discover them.
func TestListExperiments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-list"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	names := experiments.BuiltinNames()
	if len(names) < 10 {
		t.Fatalf("built-in specs: %v", names)
	}
	for _, n := range names {
		if !strings.Contains(stdout.String(), "\n  "+n+" — ") {
			t.Errorf("-list lacks the experiment %q", n)
		}
	}
}

// TestMessagePrefix: an error is one line on stderr that names the program, not the
// internal function ("run: …").
func TestMessagePrefix(t *testing.T) {
	var stderr bytes.Buffer
	if code := report(usageError{"bad flag"}, &stderr); code != 2 || stderr.String() != "expmech: bad flag\n" {
		t.Errorf("got %d %q, want 2 \"expmech: bad flag\\n\"", code, stderr.String())
	}
}
