package main

import (
	"bytes"
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
	out, err := exec.Command("bash", "scripts/k8s/render.sh", "lowrank_gk", "5", "-quick").Output()
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
	if args := get(c, "args", 0).(string); !strings.Contains(args, `-shard "$JOB_COMPLETION_INDEX/$SHARDS"`) {
		t.Errorf("shard args %q", args)
	}
	dir := filepath.Join("/data/results", runner.QuickFolder, "lowrank_gk")
	wait := get(merge, "spec", "template", "spec", "initContainers", 0, "args", 0).(string)
	if !strings.Contains(wait, dir+"/shard-*-of-5.jsonl") || !strings.Contains(wait, "-ge 5") {
		t.Errorf("merge waits with %q, want 5 shard files in %s", wait, dir)
	}
	cmd := get(merge, "spec", "template", "spec", "containers", 0, "command").([]any)
	if len(cmd) < 3 || cmd[1] != "-merge" || cmd[2] != dir {
		t.Errorf("merge command %v, want -merge %s", cmd, dir)
	}
}
