package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder: it must never panic, every error must
// be a *SpecError naming the file, and an accepted spec must expand without error.
// CI runs it briefly (make test-long): go test -run='^$' -fuzz=FuzzDecode -fuzztime=5s ./experiments
func FuzzDecode(f *testing.F) {
	for _, pattern := range []string{"testdata/valid/*.yaml", "testdata/invalid/*.yaml", "*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err == nil {
				f.Add(b)
			}
		}
	}
	schema := testSchema()
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "testdata/valid/fuzz.yaml"
		s, err := Decode(path, data, schema)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) || se.File != path {
				t.Fatalf("got %T %v, want *SpecError for %s", err, err, path)
			}
			return
		}
		if _, err := s.Cells(); err != nil {
			t.Fatalf("accepted spec fails to expand: %v", err)
		}
		if _, err := s.Shrink().Cells(); err != nil {
			t.Fatalf("accepted spec fails to expand under -quick: %v", err)
		}
	})
}
