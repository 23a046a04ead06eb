package mechtest_test

import "testing"

// TestExampleMechanism runs the kit on ExampleTest's mechanism, so the example shows a
// mechanism that passes it.
func TestExampleMechanism(t *testing.T) { conformance(t) }
