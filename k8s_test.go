package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"expmech/experiments/runner"
)

// TestK8sManifests renders scripts/k8s/jobs.yaml.tmpl and checks that every value is
// filled once and agrees: the Indexed Job's completions, parallelism and each pod's SHARDS
// are the shard count, failed indexes retry on their own (backoffLimitPerIndex), and the
// merge waits for that many shard files in the folder the binary writes them to.
func TestK8sManifests(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cmd := exec.Command("bash", "scripts/k8s/render.sh", "lowrank_gk", "5", "-quick")
	cmd.Env = append(cmd.Environ(), "IMAGE=registry.example/expmech:v1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`@[A-Z]+@`).Find(out); m != nil {
		t.Fatalf("unfilled placeholder %s in:\n%s", m, out)
	}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	var docs []map[string]any
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			break
		}
		docs = append(docs, d)
	}
	if len(docs) != 2 {
		t.Fatalf("%d documents, want the shards Job and the merge Job", len(docs))
	}
	get := func(v any, path ...any) any {
		for _, p := range path {
			switch k := p.(type) {
			case string:
				v = v.(map[string]any)[k]
			case int:
				v = v.([]any)[k]
			}
		}
		return v
	}
	shards, merge := docs[0], docs[1]
	spec := get(shards, "spec")
	if get(spec, "completionMode") != "Indexed" || get(spec, "completions") != 5 || get(spec, "parallelism") != 5 || get(spec, "backoffLimitPerIndex") == nil {
		t.Errorf("shards Job spec: %v", spec)
	}
	if n := get(shards, "metadata", "name"); n != "expmech-lowrank-gk-quick" {
		t.Errorf("name %v, want expmech-lowrank-gk-quick (DNS-1123)", n)
	}
	c := get(spec, "template", "spec", "containers", 0)
	env := map[string]any{}
	for _, e := range get(c, "env").([]any) {
		env[get(e, "name").(string)] = get(e, "value")
	}
	if env["SHARDS"] != "5" || env["EXP"] != "lowrank_gk" || env["FLAGS"] != "-quick" {
		t.Errorf("shard env %v", env)
	}
	dir := filepath.Join("/data/results", runner.QuickFolder, "lowrank_gk")
	if args := get(c, "args", 0).(string); !strings.Contains(args, `-shard "$JOB_COMPLETION_INDEX/$SHARDS"`) ||
		!strings.Contains(args, `test -e "`+dir+`/shard-$JOB_COMPLETION_INDEX-of-$SHARDS.jsonl"`) {
		t.Errorf("shard args %q, want shard $JOB_COMPLETION_INDEX of $SHARDS skipped when its file is in %s", args, dir)
	}
	if get(c, "image") != "registry.example/expmech:v1" || get(c, "imagePullPolicy") != "IfNotPresent" {
		t.Errorf("shard image %v pulled %v, want IMAGE and IfNotPresent", get(c, "image"), get(c, "imagePullPolicy"))
	}
	wait := get(merge, "spec", "template", "spec", "initContainers", 0, "args", 0).(string)
	if !strings.Contains(wait, dir+"/shard-*-of-5.jsonl") || !strings.Contains(wait, "-ge 5") {
		t.Errorf("merge waits with %q, want 5 shard files in %s", wait, dir)
	}
	mcmd := get(merge, "spec", "template", "spec", "containers", 0, "command").([]any)
	if len(mcmd) < 3 || mcmd[1] != "-merge" || mcmd[2] != dir {
		t.Errorf("merge command %v, want -merge %s", mcmd, dir)
	}
}

// TestK8sResultsFolderFromSpecName renders the Jobs for a user's spec on the volume whose
// file name differs from its name: (the binary names the results folder by name:): the
// merge must wait on, and the shards skip on, that folder — else the merge waits for its
// deadline and pods rerun finished shards. A moving or missing image tag is refused.
func TestK8sResultsFolderFromSpecName(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	spec := filepath.Join(t.TempDir(), "my-study.yaml")
	if err := os.WriteFile(spec, []byte("name: \"study_two\"  # not the file name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "scripts/k8s/render.sh", "/data/specs/my-study.yaml", "3")
	cmd.Env = append(cmd.Environ(), "SPEC="+spec, "IMAGE=expmech:v2")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`test -e "/data/results/study_two/shard-`, `ls /data/results/study_two/shard-*-of-3.jsonl`,
		`"-merge", "/data/results/study_two"`, `{name: EXP, value: "/data/specs/my-study.yaml"}`, "name: expmech-study-two\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rendered manifests lack %q:\n%s", want, out)
		}
	}
	for _, image := range []string{"expmech:latest", "expmech", "registry.example:5000/expmech"} {
		cmd := exec.Command("bash", "scripts/k8s/render.sh", "lowrank", "2")
		cmd.Env = append(cmd.Environ(), "IMAGE="+image)
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "explicit") {
			t.Errorf("IMAGE=%s: err %v, output %q; want a refusal asking for an explicit tag", image, err, out)
		}
	}
}
