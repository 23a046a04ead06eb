package runner

import (
	"strings"
	"testing"
)

// TestCodeVersionOfAnotherModule: a binary whose main module is not expmech (a module of
// one's own calling cli.Main with its own components) keys its rows by the hash of the
// binary, never by this tree's sources or the main module's commit, which do not hold
// all of its code; a binary of expmech itself run in the tree keys by the sources.
func TestCodeVersionOfAnotherModule(t *testing.T) {
	root := moduleRoot()
	if root == "" {
		t.Skip("no source tree (-trimpath)")
	}
	own := codeVersion(false, root, Provenance{Module: "example.com/own", Commit: "abc", Dirty: "false"})
	if !strings.HasPrefix(own, "sha256:") {
		t.Errorf("another module: code version %q, want sha256:<binary>", own)
	}
	if v := codeVersion(false, root, Provenance{Module: "expmech"}); !strings.HasPrefix(v, "src:") {
		t.Errorf("expmech in its tree: code version %q, want src:<sources>", v)
	}
}
