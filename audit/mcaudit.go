package audit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"expmech/algorithms"
	"expmech/problems"
)

// StatFunc runs the mechanism once on D (neighbour = false) or D′ and returns the audit
// statistic S of its output (PRIVACY.md §3.2 step 2). It must draw randomness from rng only.
type StatFunc func(ctx context.Context, neighbour bool, rng *rand.Rand) (float64, error)

// streamRNG returns the generator of draw i on one side of one stream:
// PCG(SHA-256(seed, stream, side)[0:16]) advanced to a per-draw sequence via the index, so
// the samples do not depend on the number of workers (DESIGN.md "Seeds").
func streamRNG(seed uint64, stream string, side int, i int) *rand.Rand {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(stream))
	binary.LittleEndian.PutUint64(b[:], uint64(side))
	h.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], uint64(i))
	h.Write(b[:])
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

// Collect draws n statistics on each side with a pool of workers goroutines; draw i of
// side j always uses streamRNG(seed, stream, j, i) and lands in slot i, so the result is
// identical for any worker count. The first error cancels the rest.
func Collect(ctx context.Context, f StatFunc, n int, seed uint64, stream string, workers int) (s0, s1 []float64, err error) {
	if n < 1 {
		return nil, nil, fmt.Errorf("audit: Collect n=%d", n)
	}
	workers = max(1, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := [2][]float64{make([]float64, n), make([]float64, n)}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				side, i := job%2, job/2
				v, e := f(ctx, side == 1, streamRNG(seed, stream, side, i))
				if e != nil {
					once.Do(func() { firstErr = e; cancel() })
					continue
				}
				out[side][i] = v
			}
		}()
	}
loop:
	for job := 0; job < 2*n; job++ {
		select {
		case jobs <- job:
		case <-ctx.Done():
			break loop
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, nil, firstErr
	}
	if e := ctx.Err(); e != nil {
		return nil, nil, e
	}
	return out[0], out[1], nil
}

// MCConfig sizes one Monte Carlo audit.
type MCConfig struct {
	Pilot, N   int     // runs per side for the threshold pilot and for the audit proper
	Confidence float64 // e.g. 0.95; each one-sided bound is at (1 − Confidence)/2
	Seed       uint64
	Workers    int
}

// MCResult is the outcome of one audit: the bound, the pre-registered threshold and the
// counts behind it, so that anyone can recompute the bound (PRIVACY.md §7 item 7).
type MCResult struct {
	Bound     float64 // μ_lb or ε_lb
	Threshold Threshold
	TP, FP    int // positives among the N runs on D′ and on D
	N         int
	// PilotBound is the same bound on the pilot samples (optimistic: t was chosen on them).
	PilotBound float64
}

// MuAudit runs the μ-GDP audit of PRIVACY.md §3.2: choose the threshold test on a pilot of
// cfg.Pilot runs per side (stream "pilot"), then count on cfg.N fresh runs per side
// (stream "audit") and return μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub). The pilot score is the
// bound the audit would give at size N if the pilot rates were exact, restricted to cuts
// with at least 2% of each side's pilot runs on each side of the cut: for a Gaussian
// shift the best cut is central (t = μ/2), and without the restriction the pilot overfits
// tail noise (a cut at TPR ≈ 0.996 gave μ_lb 0.896 against 0.949 expected).
func MuAudit(ctx context.Context, f StatFunc, cfg MCConfig) (MCResult, error) {
	score := func(tp, n1, fp, n0 int) float64 { return MuLowerBound(tp, n1, fp, n0, cfg.Confidence) }
	pilot := func(tp, n1, fp, n0 int) float64 {
		m := max(1, min(n1, n0)/50)
		if min(tp, n1-tp, fp, n0-fp) < m {
			return math.Inf(-1)
		}
		return score(scaleCount(tp, n1, cfg.N), cfg.N, scaleCount(fp, n0, cfg.N), cfg.N)
	}
	return thresholdAudit(ctx, f, cfg, pilot, score)
}

// EpsAudit is the (ε, δ) audit of PRIVACY.md §3.2 step 5 with the same pilot/audit split;
// its best cuts lie in the tails, so the pilot score is the projected bound without a
// minimum-count restriction.
func EpsAudit(ctx context.Context, f StatFunc, cfg MCConfig, delta float64) (MCResult, error) {
	score := func(tp, n1, fp, n0 int) float64 { return EpsLowerBound(fp, n0, n1-tp, n1, delta, cfg.Confidence) }
	pilot := func(tp, n1, fp, n0 int) float64 {
		return score(scaleCount(tp, n1, cfg.N), cfg.N, scaleCount(fp, n0, cfg.N), cfg.N)
	}
	return thresholdAudit(ctx, f, cfg, pilot, score)
}

// scaleCount maps a pilot count k of n to the expected count at size m.
func scaleCount(k, n, m int) int {
	return int(math.Round(float64(k) * float64(m) / float64(n)))
}

func thresholdAudit(ctx context.Context, f StatFunc, cfg MCConfig, pilotScore, score func(tp, n1, fp, n0 int) float64) (MCResult, error) {
	if cfg.Pilot < 1 || cfg.N < 1 || !(cfg.Confidence > 0 && cfg.Confidence < 1) {
		return MCResult{}, fmt.Errorf("audit: bad MC config %+v", cfg)
	}
	p0, p1, err := Collect(ctx, f, cfg.Pilot, cfg.Seed, "pilot", cfg.Workers)
	if err != nil {
		return MCResult{}, fmt.Errorf("audit: pilot: %w", err)
	}
	th := ChooseThreshold(p0, p1, pilotScore)
	pilot := score(th.Count(p1), len(p1), th.Count(p0), len(p0))
	s0, s1, err := Collect(ctx, f, cfg.N, cfg.Seed, "audit", cfg.Workers)
	if err != nil {
		return MCResult{}, fmt.Errorf("audit: runs: %w", err)
	}
	tp, fp := th.Count(s1), th.Count(s0)
	return MCResult{Bound: score(tp, cfg.N, fp, cfg.N), Threshold: th, TP: tp, FP: fp, N: cfg.N, PilotBound: pilot}, nil
}

// MechanismStat adapts a Mechanism to a StatFunc: each call runs m on a fresh counting
// oracle over d (or dPrime), under budget b, and returns stat(released x).
func MechanismStat(m algorithms.Mechanism, d, dPrime problems.Problem, b algorithms.Budget, stat func(x []float64) float64) StatFunc {
	return func(ctx context.Context, neighbour bool, rng *rand.Rand) (float64, error) {
		p := d
		if neighbour {
			p = dPrime
		}
		out, err := m.Run(ctx, problems.NewCounter(p), b, rng)
		if err != nil {
			return 0, err
		}
		if len(out.X) == 0 {
			return 0, errors.New("audit: mechanism released an empty point")
		}
		return stat(out.X), nil
	}
}

// FirstCoordinate is the canary statistic S = ⟨x, e₁⟩ (PRIVACY.md §3.2 recipes (a), (d1)).
func FirstCoordinate(x []float64) float64 { return x[0] }

// Underclaimed wraps a mechanism so that it RUNS at budget Run but PLANS (and so claims)
// at the budget it is asked about: a deliberately broken variant whose noise is scaled
// down relative to its claim (issue #8 "proof that the audit can fail").
type Underclaimed struct {
	algorithms.Mechanism
	RunBudget algorithms.Budget
}

// Run ignores b and runs the inner mechanism at the larger budget u.RunBudget.
func (u Underclaimed) Run(ctx context.Context, o problems.ValueAccess, b algorithms.Budget, rng *rand.Rand) (algorithms.Output, error) {
	return u.Mechanism.Run(ctx, o, u.RunBudget, rng)
}
