package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformedDataFileExit2: a spec whose LIBSVM data file has a malformed line is
// refused with exit status 2, one line on stderr naming the spec and the data file's line
// and field once (not once per cell of the sweep), and nothing written under -out or
// -figures (DESIGN.md "Data files").
func TestMalformedDataFileExit2(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "bad.yaml")
	files := map[string]string{
		"bad.libsvm": "+1 1:0.5 2:1\n-1 1:0.2 2:oops\n",
		"bad.yaml": "name: bad\ntrials: 1\ntask: sco\n" +
			"problem: {kind: glm-data, data: bad.libsvm, loss: logistic, domain: ball, radius: 1}\n" +
			"privacy: {epsilon: 1, delta: 1.0e-5}\nsweep: {epsilon: [0.5, 1, 2]}\nalgorithms: [{name: nonprivate}]\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, figs := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-exp", spec, "-out", out, "-figures", figs}, &stdout, &stderr)
	if code := report(err, &stderr); code != 2 {
		t.Errorf("exit status: got %d, want 2 (err %v)", code, err)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, spec) || strings.Count(msg, `bad.libsvm: row 2, column "index 2"`) != 1 || !strings.Contains(msg, "(every cell)") {
		t.Errorf("stderr: got %q, want one line naming %s and bad.libsvm row 2, index 2 once, in every cell", msg, spec)
	}
	for _, p := range []string{out, figs} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created for a malformed data file", p)
		}
	}
}
