package audit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/problems/canary"
)

// SamplerCell is one cell of the production-sampler validation (issue #8; PRIVACY.md §4):
// proximal-rejection against the exact separable-ℓ1 law in dimension D.
type SamplerCell struct {
	D int `yaml:"d"`
	// Ratio is kG_f²/μ, the quantity that sets the chain's cost and the ρ clipping
	// (SPEC §4.4); k and μ follow with kμ = 1/Width².
	Ratio float64 `yaml:"ratio"`
	// StepC is the practical step constant c of h = c/(k²G_f²) (0: the sampler's default 1/16).
	StepC float64 `yaml:"step_c"`
	N     int     `yaml:"n"` // proximal-rejection samples (the exact reference draws 4N)
	// Broken marks a cell run with a step constant known to bias the sampler (e.g.
	// step_c: 1, hG² = 1): the validation must flag it.
	Broken bool `yaml:"broken"`
}

// SamplerReport is the evidence of one cell.
type SamplerReport struct {
	Cell            SamplerCell
	K, Mu, H        float64
	Steps           int
	RhoNeg, RhoHigh float64 // mean ρ clipping rates (SPEC §4.3, §8.9)
	// Marginal KS: the largest √N·D_N over coordinates against the exact CDF, and the
	// Bonferroni-adjusted p-value min_j(d·p_j).
	MaxKS, KSP float64
	// Q = Σ_j ((x_j − m_j)/sd_j)² (χ²_d-type), two-sample KS against the exact sampler.
	QKS, QP float64
	// Tails: total count of |x_j − m_j| > 3 sd_j over all coordinates and samples, its
	// expectation from the exact CDFs, and the two-sided z-test p-value.
	TailCount    int
	TailExpected float64
	TailP        float64
	MaxMeanZ     float64 // max_j |mean_j − m_j|/(sd_j/√N): the measured deviation of the practical constants
	MinP         float64 // min of KSP, QP, TailP
}

// samplerInstance builds the cell's ℓ1 problem: n = 5 points with coordinates drawn from
// {−0.1, 0, 0.1} (a fixed stream), weight 1 (G_f = √d), K = [−1, 1]^d, and (k, μ) with
// kG_f²/μ = Ratio and posterior width 1/√(kμ) = 0.1, so the kinks lie inside the bulk.
func samplerInstance(c SamplerCell) (*canary.L1, float64, float64) {
	rng := rand.New(rand.NewPCG(0x5a3b1e, uint64(c.D)))
	z := make([][]float64, 5)
	for i := range z {
		z[i] = make([]float64, c.D)
		for j := range z[i] {
			z[i][j] = 0.1 * float64(rng.IntN(3)-1)
		}
	}
	p := canary.NewL1(z, 1, problems.Domain{Kind: problems.Box, Radius: 1})
	g2 := float64(c.D) // G_f² = w²d
	const kmu = 100.0  // width 0.1
	k := math.Sqrt(kmu * c.Ratio / g2)
	return p, k, kmu / k
}

// ValidateSampler runs one cell: cfg.N proximal-rejection draws and 4N exact draws of
// the same target (stream seeds from seed), then the three tests of PRIVACY.md §4.2:
// marginal KS against the exact CDFs, KS of the χ²_d-type statistic Q, and the 3-sd tail
// counts, plus the mean deviation and the clipping rates.
func ValidateSampler(ctx context.Context, c SamplerCell, seed uint64, workers int) (SamplerReport, error) {
	if c.D < 1 || !(c.Ratio > 0) || c.N < 10 || c.StepC < 0 {
		return SamplerReport{}, fmt.Errorf("audit: bad sampler cell %+v", c)
	}
	p, k, mu := samplerInstance(c)
	laws, err := samplerLaws(p, k, mu)
	if err != nil {
		return SamplerReport{}, err
	}
	d := c.D
	m, sd := make([]float64, d), make([]float64, d)
	tailP := make([]float64, d)
	for j := range laws {
		m[j], sd[j] = lawMoments(&laws[j], -1, 1)
		tailP[j] = laws[j].CDF(m[j]-3*sd[j]) + 1 - laws[j].CDF(m[j]+3*sd[j])
	}
	tgt := algorithms.Target{K: k, Mu: mu, TV: 1e-6, StepC: c.StepC}
	sched, err := sampler.ProximalRejection{}.Schedule(p.Constants(), tgt)
	if err != nil {
		return SamplerReport{}, err
	}
	rep := SamplerReport{Cell: c, K: k, Mu: mu, H: sched.H, Steps: sched.Steps}
	xs := make([][]float64, c.N)
	neg, high := make([]float64, c.N), make([]float64, c.N)
	err = parallelFor(ctx, c.N, workers, func(i int) error {
		rec := algorithms.Empty()
		x, err := sampler.ProximalRejection{}.Sample(ctx, problems.NewCounter(p), tgt, streamRNG(seed, "sampler/proximal", d, i), &rec)
		if err != nil {
			return err
		}
		xs[i], neg[i], high[i] = x, rec.Extra["rho_neg_rate"], rec.Extra["rho_high_rate"]
		return nil
	})
	if err != nil {
		return SamplerReport{}, err
	}
	for i := range neg {
		rep.RhoNeg += neg[i] / float64(c.N)
		rep.RhoHigh += high[i] / float64(c.N)
	}
	// Marginals.
	col := make([]float64, c.N)
	rep.KSP = 1
	for j := 0; j < d; j++ {
		mean := 0.0
		for i := range xs {
			col[i] = xs[i][j]
			mean += col[i] / float64(c.N)
		}
		rep.MaxMeanZ = math.Max(rep.MaxMeanZ, math.Abs(mean-m[j])/(sd[j]/math.Sqrt(float64(c.N))))
		law := &laws[j]
		dn := KSOneSample(col, law.CDF)
		rep.MaxKS = math.Max(rep.MaxKS, math.Sqrt(float64(c.N))*dn)
		rep.KSP = math.Min(rep.KSP, float64(d)*KSPValueOneSample(dn, c.N))
		for _, v := range col {
			if math.Abs(v-m[j]) > 3*sd[j] {
				rep.TailCount++
			}
		}
		rep.TailExpected += float64(c.N) * tailP[j]
	}
	rep.KSP = math.Min(1, rep.KSP)
	tailVar := 0.0
	for j := range tailP {
		tailVar += float64(c.N) * tailP[j] * (1 - tailP[j])
	}
	rep.TailP = math.Erfc(math.Abs(float64(rep.TailCount)-rep.TailExpected) / math.Sqrt(tailVar) / math.Sqrt2)
	// Q against exact draws.
	q := func(x []float64) float64 {
		s := 0.0
		for j, v := range x {
			t := (v - m[j]) / sd[j]
			s += t * t
		}
		return s
	}
	qp := make([]float64, c.N)
	for i, x := range xs {
		qp[i] = q(x)
	}
	ne := 4 * c.N
	qe := make([]float64, ne)
	rng := streamRNG(seed, "sampler/exact", d, 0)
	x := make([]float64, d)
	for i := range qe {
		for j := range laws {
			x[j] = laws[j].Draw(rng)
		}
		qe[i] = q(x)
	}
	dq := KSTwoSample(qp, qe)
	rep.QKS = dq * math.Sqrt(float64(c.N)*float64(ne)/float64(c.N+ne))
	rep.QP = KSPValueTwoSample(dq, c.N, ne)
	rep.MinP = math.Min(rep.KSP, math.Min(rep.QP, rep.TailP))
	return rep, nil
}

func samplerLaws(p *canary.L1, k, mu float64) ([]sampler.PiecewiseLaw, error) {
	return sampler.SeparableL1Laws(p.Points(), p.Weight(), p.Constants().Domain, k, mu)
}

// lawMoments returns the mean and standard deviation of a 1-D law on [lo, hi] from its
// CDF: E X = lo + ∫(1 − F), E X² = lo² + ∫ 2x(1 − F) (integration by parts), by the
// midpoint rule on 20 000 cells (dx = 1e-4 = width/1000: error O(dx²) at the kinks).
func lawMoments(l *sampler.PiecewiseLaw, lo, hi float64) (mean, sd float64) {
	const cells = 20000
	dx := (hi - lo) / cells
	e1, e2 := lo, lo*lo
	for i := 0; i < cells; i++ {
		x := lo + (float64(i)+0.5)*dx
		s := 1 - l.CDF(x)
		e1 += s * dx
		e2 += 2 * x * s * dx
	}
	return e1, math.Sqrt(math.Max(0, e2-e1*e1))
}

// parallelFor runs f(0..n−1) on a pool of workers; the first error cancels the rest.
func parallelFor(ctx context.Context, n, workers int, f func(i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for w := 0; w < max(1, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := f(i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
loop:
	for i := 0; i < n; i++ {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break loop
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// streamRNG returns the generator of draw i on one side of one stream:
// PCG(SHA-256(seed, stream, side, i)[0:16]), so the samples do not depend on the number
// of workers (DESIGN.md "Seeds").
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
