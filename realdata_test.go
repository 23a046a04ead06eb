package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformedDataFileExit2: a spec whose LIBSVM data file has a malformed line, or a
// line that disagrees with the spec's d or index base (DESIGN.md "Data files": the
// dimension is the spec's, never the file's), is refused with exit status 2, one line on
// stderr naming the spec and the data file's line and field, and nothing written under
// -out or -figures; over a sweep of three cells the line names the file's fault once.
func TestMalformedDataFileExit2(t *testing.T) {
	for name, tc := range map[string]struct{ body, want string }{
		"malformed":    {"+1 1:0.5 2:1\n-1 1:0.2 2:oops\n", `bad.libsvm: row 2, column "index 2"`},
		"beyond d":     {"+1 1:0.5 2:1\n-1 1:0.2 3:1\n+1 2:1\n", `bad.libsvm: row 2, column "index 3": bad data value: beyond d = 2`},
		"0 in 1-based": {"+1 1:0.5 2:1\n-1 0:0.2 1:1\n+1 2:1\n", `bad.libsvm: row 2, column "index 0"`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			spec := filepath.Join(dir, "bad.yaml")
			files := map[string]string{
				"bad.libsvm": tc.body,
				"bad.yaml": "name: bad\ntrials: 1\ntask: sco\n" +
					"problem: {kind: glm-data, data: bad.libsvm, loss: logistic, domain: ball, radius: 1, d: 2, index_base: 1,\n" +
					"  feature_low: [-1], feature_high: [1], intercept: false, normalize: sqrt_d, feature_norm: 1, test_every: 4}\n" +
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
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, spec) || strings.Count(msg, tc.want) != 1 || !strings.Contains(msg, "(every cell)") {
				t.Errorf("stderr: got %q, want one line naming %s and %s once, in every cell", msg, spec, tc.want)
			}
			for _, p := range []string{out, figs} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was created for a refused data file", p)
				}
			}
		})
	}
}
