package main

import (
	"os/exec"
	"strings"
	"testing"
)

// render runs scripts/k8s/render.sh with args and env (IMAGE is pinned so that the test
// does not depend on the checkout being a git repository).
func render(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"../render.sh"}, args...)...)
	cmd.Env = append(append(cmd.Environ(), "IMAGE=registry.example/expmech:v1"), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render.sh %v: %v", args, err)
	}
	return out
}

// TestRenderedManifestsValid validates what render.sh prints for a built-in experiment,
// a quick run and a user's spec on the volume against the batch/v1 Job schema.
func TestRenderedManifestsValid(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"lowrank"}},
		{[]string{"CPUS=2", "MEM=512Mi", "PVC=my-claim"}, []string{"erm_rates", "16", "-quick", "-trials", "3"}},
		{[]string{"SPEC=../../../testdata/tiny.yaml"}, []string{"/data/specs/tiny.yaml", "3"}},
	} {
		jobs, err := Validate(render(t, tc.env, tc.args...))
		if err != nil {
			t.Errorf("render.sh %v: %v", tc.args, err)
			continue
		}
		if len(jobs) != 2 {
			t.Errorf("render.sh %v: %d Jobs, want the shards and the merge", tc.args, len(jobs))
		}
		for _, j := range jobs {
			for _, c := range append(j.Spec.Template.Spec.InitContainers, j.Spec.Template.Spec.Containers...) {
				if c.ImagePullPolicy != "IfNotPresent" {
					t.Errorf("%s/%s: imagePullPolicy %q, want IfNotPresent", j.Name, c.Name, c.ImagePullPolicy)
				}
			}
		}
	}
}

// TestValidateRejects checks that the validator fails on each kind of defect it is there
// to catch (a validator that passes everything would pass the rendered manifests too).
func TestValidateRejects(t *testing.T) {
	good := string(render(t, nil, "lowrank", "4"))
	for _, tc := range []struct{ name, old, new, want string }{
		{"unknown field", "completionMode: Indexed", "completionMode: Indexed\n  backoffLimitPerIndx: 2", "unknown field"},
		{"wrong type", "completions: 4", "completions: four", "completions"},
		{"bad quantity", `memory: "4Gi"`, `memory: "4 gigs"`, "quantit"},
		{"latest tag", "registry.example/expmech:v1", "expmech:latest", "latest"},
		{"no pull policy", "imagePullPolicy: IfNotPresent", "", "imagePullPolicy"},
		{"bad name", "name: expmech-lowrank\n", "name: expmech_lowrank\n", "metadata.name"},
		{"per-index needs Indexed", "completionMode: Indexed", "completionMode: NonIndexed", "backoffLimitPerIndex"},
		{"restart policy", "restartPolicy: Never", "restartPolicy: Always", "restartPolicy"},
		{"mount without volume", "- {name: data, mountPath: /data}", "- {name: dta, mountPath: /data}", "names no volume"},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		if bad == good {
			t.Fatalf("%s: %q not in the rendered manifests", tc.name, tc.old)
		}
		if _, err := Validate([]byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if _, err := Validate([]byte("# only a comment\n---\n")); err == nil {
		t.Error("an empty stream validated")
	}
}
