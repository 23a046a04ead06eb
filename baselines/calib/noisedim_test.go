package calib

import (
	"testing"

	"expmech/problems"
)

// TestNoiseDim: d on a bounded K or a non-GLM, the declared rank on an unconstrained GLM,
// min(n, d) when no rank is declared or it was measured.
func TestNoiseDim(t *testing.T) {
	unc := problems.Domain{Kind: problems.Unconstrained, Radius: 2}
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	for _, c := range []struct {
		name string
		c    problems.Constants
		want int
	}{
		{"ball GLM", problems.Constants{N: 100, D: 50, Rank: 4, GLMLoss: "absolute", Domain: ball}, 50},
		{"unconstrained non-GLM", problems.Constants{N: 100, D: 50, Rank: 4, Domain: unc}, 50},
		{"unconstrained GLM, rank", problems.Constants{N: 100, D: 1000, Rank: 4, GLMLoss: "absolute", Domain: unc}, 4},
		{"unconstrained GLM, no rank", problems.Constants{N: 100, D: 1000, GLMLoss: "absolute", Domain: unc}, 100},
		{"unconstrained GLM, small d", problems.Constants{N: 100, D: 20, GLMLoss: "absolute", Domain: unc}, 20},
		{"rank measured", problems.Constants{N: 100, D: 1000, Rank: 4, GLMLoss: "absolute", Domain: unc, Measured: []string{problems.ConstRank}}, 100},
	} {
		if got := NoiseDim(c.c); got != c.want {
			t.Errorf("%s: NoiseDim = %d, want %d", c.name, got, c.want)
		}
	}
}
