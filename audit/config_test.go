package audit

import (
	"os"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestAuditYAMLDecodes: experiments/audit.yaml decodes strictly into Config and validates.
func TestAuditYAMLDecodes(t *testing.T) {
	f, err := os.Open("../experiments/audit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg := DefaultConfig()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if cfg.NPerSide != 100000 || len(cfg.Samplers) != 3 || !cfg.Samplers[2].Broken {
		t.Errorf("got %+v", cfg)
	}
}
