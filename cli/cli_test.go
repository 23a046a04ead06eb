package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
)

// ownSampler is a sampler of a caller's own (the exact sampler under another name).
type ownSampler struct{ sampler.Exact }

func (ownSampler) Name() string { return "own" }

// TestListDescribesEveryEntry: -list gives every built-in problem, algorithm, sampler and
// experiment a one-line description, and lists a caller's own components after them.
func TestListDescribesEveryEntry(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"-list"}, &out, &errb, Components{Samplers: []algorithms.Sampler{ownSampler{}}}); err != nil {
		t.Fatal(err)
	}
	section, entries := "", map[string]int{}
	for _, ln := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(ln, "  ") {
			section = strings.Fields(ln)[0]
			continue
		}
		entries[section]++
		name, doc, _ := strings.Cut(strings.TrimSpace(ln), " — ")
		if name == "own" && section != "samplers:" {
			t.Errorf("own sampler listed under %s", section)
		}
		if len(strings.Fields(doc)) < 3 {
			t.Errorf("%s %s: no one-line description (%q)", section, name, ln)
		}
	}
	for _, s := range []string{"problems:", "algorithms:", "samplers:", "experiments"} {
		if entries[s] < 3 {
			t.Errorf("-list: %d entries under %s", entries[s], s)
		}
	}
	if !strings.Contains(out.String(), "\n  own — ") {
		t.Error("-list lacks the caller's sampler")
	}
}

// TestRegistryRefusesATakenName: a component of one's own under a built-in's name is a
// usage error (exit status 2) naming it, not a silent shadowing.
func TestRegistryRefusesATakenName(t *testing.T) {
	var out, errb bytes.Buffer
	err := Run(context.Background(), []string{"-list"}, &out, &errb, Components{Samplers: []algorithms.Sampler{sampler.MALA{}}})
	if code := Exit(err, &errb); code != 2 || !strings.Contains(errb.String(), "sampler mala is registered twice") {
		t.Errorf("exit %d, stderr %q: want 2 and the duplicate named", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q before refusing", out.String())
	}
}

// TestCPUProfileIsWritten: -cpuprofile leaves a profile go tool pprof reads (it starts
// with the gzip magic of the profile.proto encoding).
func TestCPUProfileIsWritten(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	var out, errb bytes.Buffer
	if err := Run(context.Background(), []string{"-list", "-cpuprofile", prof}, &out, &errb, Components{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("-cpuprofile wrote %d bytes, not a gzip-encoded profile", len(b))
	}
}
