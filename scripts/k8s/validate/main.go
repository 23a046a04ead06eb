// Command validate checks rendered Kubernetes manifests (scripts/k8s/render.sh's output)
// against the batch/v1 Job schema, offline: each YAML document is decoded strictly into
// k8s.io/api's batch/v1 Job (an unknown or misspelt field, a wrong type or an unparsable
// resource quantity is an error), then checked for the rules the API server would apply
// to the fields these manifests use (names and labels, indexed completions, pull policy).
// It is its own module so that the harness's module takes no k8s.io dependency.
//
//	scripts/k8s/render.sh lowrank 4 | go run ./scripts/k8s/validate
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err == nil {
		var jobs []batchv1.Job
		jobs, err = Validate(in)
		if err == nil {
			fmt.Printf("validate: %d batch/v1 Jobs valid\n", len(jobs))
			return
		}
	}
	fmt.Fprintln(os.Stderr, "validate:", err)
	os.Exit(1)
}

// Validate decodes every document of a multi-document YAML stream strictly into a
// batch/v1 Job and checks it; it fails on the first invalid document, naming it.
func Validate(stream []byte) ([]batchv1.Job, error) {
	var jobs []batchv1.Job
	for i, doc := range splitDocs(stream) {
		var j batchv1.Job
		if err := yaml.UnmarshalStrict(doc, &j); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if errs := check(&j); len(errs) > 0 {
			return nil, fmt.Errorf("document %d (Job %q): %s", i+1, j.Name, strings.Join(errs, "; "))
		}
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("no document")
	}
	return jobs, nil
}

// splitDocs splits a YAML stream on its "---" separator lines, dropping documents that
// hold only comments or blanks.
func splitDocs(stream []byte) [][]byte {
	var docs [][]byte
	for _, d := range bytes.Split(append([]byte("\n"), stream...), []byte("\n---")) {
		if slices.ContainsFunc(strings.Split(string(d), "\n"), func(l string) bool {
			t := strings.TrimSpace(l)
			return t != "" && !strings.HasPrefix(t, "#")
		}) {
			docs = append(docs, d)
		}
	}
	return docs
}

// check applies the API server's rules (k8s.io/kubernetes pkg/apis/batch/validation and
// core/validation) for the fields these manifests set; the full validator lives in the
// kubernetes module itself, which is not meant to be imported.
func check(j *batchv1.Job) []string {
	var errs []string
	add := func(field string, msgs []string) {
		for _, m := range msgs {
			errs = append(errs, field+": "+m)
		}
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		errs = append(errs, fmt.Sprintf("apiVersion/kind %s/%s, want batch/v1 Job", j.APIVersion, j.Kind))
	}
	// A Job's name is a DNS-1123 subdomain, and its pods' job-name label, a label value
	// (≤ 63 characters), must hold it.
	add("metadata.name", validation.IsDNS1123Subdomain(j.Name))
	add("metadata.name", validation.IsValidLabelValue(j.Name))
	for _, labels := range []map[string]string{j.Labels, j.Spec.Template.Labels} {
		for k, v := range labels {
			add("labels."+k, validation.IsQualifiedName(k))
			add("labels."+k, validation.IsValidLabelValue(v))
		}
	}
	s := j.Spec
	pos := func(field string, p *int32) {
		if p != nil && *p < 0 {
			errs = append(errs, field+": must be ≥ 0")
		}
	}
	pos("spec.completions", s.Completions)
	pos("spec.parallelism", s.Parallelism)
	pos("spec.backoffLimit", s.BackoffLimit)
	pos("spec.backoffLimitPerIndex", s.BackoffLimitPerIndex)
	if s.ActiveDeadlineSeconds != nil && *s.ActiveDeadlineSeconds <= 0 {
		errs = append(errs, "spec.activeDeadlineSeconds: must be > 0")
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	if s.CompletionMode != nil && !indexed && *s.CompletionMode != batchv1.NonIndexedCompletion {
		errs = append(errs, fmt.Sprintf("spec.completionMode: %q is not Indexed or NonIndexed", *s.CompletionMode))
	}
	if indexed && s.Completions == nil {
		errs = append(errs, "spec.completions: required when completionMode is Indexed")
	}
	if s.BackoffLimitPerIndex != nil {
		if !indexed {
			errs = append(errs, "spec.backoffLimitPerIndex: requires completionMode Indexed")
		}
		if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
			errs = append(errs, "spec.backoffLimitPerIndex: requires restartPolicy Never")
		}
	}
	if s.MaxFailedIndexes != nil {
		if s.BackoffLimitPerIndex == nil {
			errs = append(errs, "spec.maxFailedIndexes: requires backoffLimitPerIndex")
		} else if s.Completions != nil && *s.MaxFailedIndexes > *s.Completions {
			errs = append(errs, "spec.maxFailedIndexes: must be ≤ completions")
		}
	}
	if p := s.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		errs = append(errs, fmt.Sprintf("spec.template.spec.restartPolicy: %q, a Job's pods need Never or OnFailure", p))
	}
	volumes := map[string]bool{}
	for _, v := range s.Template.Spec.Volumes {
		add("volumes."+v.Name, validation.IsDNS1123Label(v.Name))
		volumes[v.Name] = true
	}
	for _, cs := range [][]corev1.Container{s.Template.Spec.InitContainers, s.Template.Spec.Containers} {
		for _, c := range cs {
			errs = append(errs, checkContainer(c, volumes)...)
		}
	}
	if len(s.Template.Spec.Containers) == 0 {
		errs = append(errs, "spec.template.spec.containers: at least one")
	}
	return errs
}

func checkContainer(c corev1.Container, volumes map[string]bool) []string {
	var errs []string
	f := "container " + c.Name
	for _, m := range validation.IsDNS1123Label(c.Name) {
		errs = append(errs, f+": name: "+m)
	}
	if c.Image == "" {
		errs = append(errs, f+": image: required")
	}
	// A moving tag lets the pods of one run start different binaries, whose shard files
	// the merge refuses to join; and ":latest" (or no tag) makes the default pull policy
	// Always, a registry pull per pod.
	if tag := imageTag(c.Image); tag == "" || tag == "latest" {
		errs = append(errs, fmt.Sprintf("%s: image %q: give an explicit tag other than latest", f, c.Image))
	}
	switch c.ImagePullPolicy {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		errs = append(errs, fmt.Sprintf("%s: imagePullPolicy %q, want Always, IfNotPresent or Never (explicit)", f, c.ImagePullPolicy))
	}
	for name, q := range c.Resources.Requests {
		if l, ok := c.Resources.Limits[name]; ok && q.Cmp(l) > 0 {
			errs = append(errs, fmt.Sprintf("%s: request %s %s exceeds its limit %s", f, name, q.String(), l.String()))
		}
	}
	for _, m := range c.VolumeMounts {
		if !volumes[m.Name] {
			errs = append(errs, fmt.Sprintf("%s: volumeMount %q names no volume", f, m.Name))
		}
	}
	for _, e := range c.Env {
		for _, m := range validation.IsEnvVarName(e.Name) {
			errs = append(errs, f+": env "+e.Name+": "+m)
		}
	}
	return errs
}

// imageTag returns the tag of an image reference ("" when it has none or is pinned by
// digest only).
func imageTag(image string) string {
	ref, _, _ := strings.Cut(image, "@")
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ""
	}
	return ref[i+1:]
}
