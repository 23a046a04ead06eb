package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTypedEnumErrors: a bad value of a typed enum (task.Kind, loss.Kind, domain.Kind, expmech's Mode,
// CalibrationMethod, Setting; tuning through rows.ParseTuning) is rejected by strict decoding through its UnmarshalText,
// with exit status 2 and one line naming the file, the line and the key. prob replaces the
// problem block (line 3) and tail is appended after the algorithms (line 6).
func TestTypedEnumErrors(t *testing.T) {
	const lossWant = `want one of [logistic hinge absolute] or empty (the generator's own), got "squared"`
	for _, tc := range []struct {
		name, alg, top, want string
		prob, tail           string
	}{
		{"task", "{name: expmech}", "task: pac\n", `:2: task: want one of [erm sco], got "pac"`, "", ""},
		{"mode", "{name: expmech, mode: fast}", "", `:5: algorithms[0].mode: mode "fast": want certified or practical`, "", ""},
		{"pure-mode", "{name: expmech-pure, mode: fast}", "", `:5: algorithms[0].mode: mode "fast": want certified or practical`, "", ""},
		{"calibration", "{name: expmech, calibration: approx}", "", `:5: algorithms[0].calibration: calibration "approx": want exact or paper`, "", ""},
		{"setting", "{name: expmech, setting: pure}", "", `:5: algorithms[0].setting: setting "pure": want auto, erm, sco, strongly-convex or lowrank`, "", ""},
		{"tuning", "{name: noisy-gd, tuning: sometimes}", "", `:5: algorithms[0].tuning: "sometimes", want one of [theory oracle private]`, "", ""},
		{"old tuning_mode", "{name: noisy-gd, tuning_mode: charged}", "", ":5: algorithms[0].tuning_mode: replaced by the entry's `tuning:` key", "", ""},
		{"loss", "{name: expmech}", "", ":3: problem.loss: " + lossWant, "{kind: glm, n: 10, d: 2, loss: squared}", ""},
		{"swept loss", "{name: expmech}", "", ":6: sweep.loss: " + lossWant, "{kind: glm, n: 10, d: 2}", "sweep: {n: [10, 20], loss: [logistic, squared]}\n"},
		{"domain", "{name: expmech}", "", `:3: problem.domain: want one of [ball box unconstrained], got "sphere"`, "{kind: l1, n: 10, d: 2, domain: sphere}", ""},
		{"swept domain", "{name: expmech}", "", `:6: sweep.domain: want one of [ball box unconstrained], got ""`, "", "sweep: {domain: [ball, \"\"], n: [10, 20]}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "spec.yaml")
			top, prob := tc.top, tc.prob
			if top == "" {
				top = "\n"
			}
			if prob == "" {
				prob = "{kind: l1, n: 10, d: 2}"
			}
			spec := "name: x\n" + top + "problem: " + prob + "\nprivacy: {epsilon: 1, delta: 1e-5}\nalgorithms: [" + tc.alg + "]\n" + tc.tail
			if err := os.WriteFile(f, []byte(spec), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"-exp", f, "-out", filepath.Join(dir, "r"), "-figures", filepath.Join(dir, "f")}, &stdout, &stderr)
			if code := report(err, &stderr); code != 2 {
				t.Errorf("exit status: got %d, want 2 (err %v)", code, err)
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, f+tc.want) {
				t.Errorf("stderr: got %q, want one line containing %q", msg, f+tc.want)
			}
		})
	}
}
