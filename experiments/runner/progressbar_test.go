package runner

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestProgressTicksWithoutRows: off a terminal a plain line comes every Interval even
// while no row finishes (a long plan or row), and none after finish.
func TestProgressTicksWithoutRows(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := newProgress(Options{Progress: &out, Interval: 20 * time.Millisecond}, "exp", 4, 0, map[string]float64{"a": 4})
	p.tick()
	const line = "0/4 rows, 0% of the predicted cost"
	for deadline := time.Now().Add(5 * time.Second); strings.Count(out.String(), line) < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	p.finish(false)
	got := out.String()
	if n := strings.Count(got, line); n < 2 {
		t.Errorf("5 s at a 20 ms interval with no row: %d progress lines, want several:\n%s", n, got)
	}
	time.Sleep(60 * time.Millisecond)
	if after := out.String(); after != got || !strings.HasSuffix(got, "done\n") {
		t.Errorf("lines after finish, or no final line:\n%s", after)
	}
}

// syncBuffer is a bytes.Buffer safe for the ticker's goroutine and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
