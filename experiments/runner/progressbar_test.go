package runner

import (
	"bytes"
	"strings"
	"testing"
)

// TestTerminalBarNeverClaimsCompletion: on a terminal the bar (schollz/progressbar) shows
// the share of the predicted cost done and, when a run is interrupted, stays where it was
// with the true row count instead of jumping to 100%.
func TestTerminalBarNeverClaimsCompletion(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(Options{Progress: &out, Terminal: true}, "exp", 4, 0, map[string]float64{"a": 4})
	p.add("a", 1, 0.1, false)
	p.add("a", 1, 0.1, false)
	p.draw(p.start, "")
	p.finish(true)
	got := out.String()
	if !strings.Contains(got, "50%") || !strings.Contains(got, "2/4 rows") {
		t.Errorf("bar at half the cost: got %q, want 50%% and 2/4 rows", got)
	}
	if strings.Contains(got, "100%") || !strings.Contains(got, "interrupted (2 rows missing)") {
		t.Errorf("interrupted run: got %q, want no 100%% and the missing rows", got)
	}
}
