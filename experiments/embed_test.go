package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestBuiltinSpecs: every spec of this folder is built in, byte for byte, and Builtin
// refuses names with a folder.
func TestBuiltinSpecs(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("specs: %v (%v)", files, err)
	}
	for _, f := range files {
		disk, _ := os.ReadFile(f)
		b, ok := Builtin(f)
		if !ok || !bytes.Equal(b, disk) {
			t.Errorf("%s: built in %v, same bytes %v", f, ok, bytes.Equal(b, disk))
		}
	}
	for _, bad := range []string{"testdata/invalid/empty.yaml", "../go.mod", "nope.yaml"} {
		if _, ok := Builtin(bad); ok {
			t.Errorf("Builtin(%q) found something", bad)
		}
	}
}
