package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/experiments"
	"expmech/experiments/runner"
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
	if code := report(usageError{Msg: "bad flag"}, &stderr); code != 2 || stderr.String() != "expmech: bad flag\n" {
		t.Errorf("got %d %q, want 2 \"expmech: bad flag\\n\"", code, stderr.String())
	}
	// a folder another run is writing is refused like a finished run in the way
	if code := report(fmt.Errorf("runner: busy: %w", runner.ErrBusy), io.Discard); code != 2 {
		t.Errorf("ErrBusy: exit %d, want 2", code)
	}
}

// TestStrongConvexityRefusedInEveryTuningMode: the constants check of a tuned mechanism is
// its base's (algorithms.As through the tuning wrapper's Unwrap), so setting
// strongly-convex with strong_convexity: 1 on the linear problem (which declares none) is
// refused before anything runs under every tuning mode, not only theory: exit status 2,
// the file and key named, no results and no figures written.
func TestStrongConvexityRefusedInEveryTuningMode(t *testing.T) {
	for _, mode := range []string{"theory", "oracle", "private"} {
		t.Run(mode, func(t *testing.T) {
			dir := writeSpec(t, map[string]string{"sc.yaml": `name: sc
problem: {kind: linear, domain: ball, radius: 1, n: 20, d: 2}
privacy: {epsilon: 1, delta: 1.0e-5}
trials: 1
algorithms: [{name: expmech, sampler: exact, setting: strongly-convex, strong_convexity: 1, tuning: ` + mode + `}]
`})
			out, fig := filepath.Join(dir, "out"), filepath.Join(dir, "fig")
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"-exp", filepath.Join(dir, "sc.yaml"), "-out", out, "-figures", fig, "-workers", "1"}, &stdout, &stderr)
			if code := report(err, &stderr); code != 2 {
				t.Fatalf("exit status %d, want 2 (err %v)", code, err)
			}
			msg := stderr.String()
			for _, want := range []string{"sc.yaml", "algorithms[0].strong_convexity", "declared strong convexity 0"} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr %q lacks %q", msg, want)
				}
			}
			for _, p := range []string{out, fig} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written for a refused spec", p)
				}
			}
		})
	}
}

// TestEmptyOutRefused: `-out ""` would write into the working folder; it is refused with
// exit status 2 before anything is written, in every mode that writes.
func TestEmptyOutRefused(t *testing.T) {
	spec := tinySpecAbs(t)
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"-exp", spec, "-out", ""},
		{"-exp", spec, "-out", "", "-dry-run"},
		{"-report", "-out", ""},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if code := report(err, &stderr); code != 2 || !strings.Contains(stderr.String(), `-out ""`) {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming -out \"\"", args, code, stderr.String())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%q wrote %d entries into the working folder", args, len(ents))
		}
	}
}

func tinySpecAbs(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHelpListsNoRemovedFlag: -h prints the usage and the working flags, not a removed
// one (-audit, which only says what replaced it).
func TestHelpListsNoRemovedFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "usage: expmech") || !strings.Contains(out, "  -exp string") || !strings.Contains(out, `(default "results")`) {
		t.Errorf("-h: want the usage line and the flags with their defaults:\n%s", out)
	}
	if strings.Contains(out, "-audit") || strings.Contains(out, "removed") {
		t.Errorf("-h lists a removed flag:\n%s", out)
	}
}
