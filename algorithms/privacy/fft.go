package privacy

import (
	"math"
	"math/bits"
)

// realFFT is an unnormalised real discrete Fourier transform of a power-of-two length
// n = 2m ≥ 4, in the conventions of gonum's fourier.FFT (Coefficients: X_k =
// Σ_j x_j e^{−2πijk/n}, k = 0..m; Sequence: x_j = Σ over the full spectrum, i.e. n times
// the inverse). It packs the even and odd samples into one complex sequence of length m,
// transforms it by an iterative radix-2 Cooley–Tukey FFT with precomputed twiddles, and
// separates the halves with X_k = E_k + e^{−2πik/n}O_k (the standard real-FFT split).
// The PLD composition is one forward and one inverse transform per evaluation; gonum's
// fftpack spent most of the calibration time there.
type realFFT struct {
	n, m int
	tw   []complex128 // stage tables: tw[h−1+k] = e^{−2πik/(2h)}, k < h, h = 1, 2, 4, …, m/2
	itw  []complex128 // their conjugates (inverse transform)
	rt   []complex128 // e^{−2πik/n}, k ≤ m
	rev  []int32      // bit reversal of log2(m) bits
	z    []complex128 // work, length m
}

func newRealFFT(n int) *realFFT {
	if n < 4 || n&(n-1) != 0 {
		panic("privacy: realFFT length must be a power of two >= 4")
	}
	m := n / 2
	f := &realFFT{n: n, m: m, tw: make([]complex128, max(1, m-1)), itw: make([]complex128, max(1, m-1)),
		rt: make([]complex128, m+1), rev: make([]int32, m), z: make([]complex128, m)}
	// rt by Sincos on [0, π/2] and the reflection e^{−i(π−θ)} = −cos θ − i·(−sin θ);
	// every stage table is a subsample of rt: e^{−πik/h} = rt[k·m/h].
	for k := 0; 2*k <= m; k++ {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.rt[k] = complex(c, s)
	}
	for k := m/2 + 1; k <= m; k++ {
		r := f.rt[m-k]
		f.rt[k] = complex(-real(r), imag(r))
	}
	for h := 1; h < m; h *= 2 {
		step := m / h
		for k := range h {
			w := f.rt[k*step]
			f.tw[h-1+k], f.itw[h-1+k] = w, complex(real(w), -imag(w))
		}
	}
	lg := bits.TrailingZeros(uint(m))
	for i := range f.rev {
		if lg > 0 {
			f.rev[i] = int32(bits.Reverse(uint(i)) >> (bits.UintSize - lg))
		}
	}
	return f
}

// cfft transforms z in place (length m): forward e^{−2πi·}, or inverse (unnormalised,
// conjugate twiddles).
func (f *realFFT) cfft(z []complex128, inverse bool) {
	for i, j := range f.rev {
		if i < int(j) {
			z[i], z[j] = z[j], z[i]
		}
	}
	f.stages(z, inverse, 1)
}

// stages runs the radix-2 butterfly stages of block sizes 2·from, 4·from, …, m on
// bit-reversed data.
func (f *realFFT) stages(z []complex128, inverse bool, from int) {
	m := f.m
	tw := f.tw
	if inverse {
		tw = f.itw
	}
	if from == 1 {
		for s := 0; s < m; s += 2 { // size-2 stage: twiddle 1
			a, b := z[s], z[s+1]
			z[s], z[s+1] = a+b, a-b
		}
		from = 2
	}
	for size := 2 * from; size <= m; size <<= 1 {
		half := size / 2
		w := tw[half-1 : size-1]
		for s := 0; s < m; s += size {
			lo, hi := z[s:s+half], z[s+half:s+size]
			for k, wk := range w {
				a, b := lo[k], hi[k]*wk
				lo[k], hi[k] = a+b, a-b
			}
		}
	}
}

// Coefficients writes X_0..X_m of x (len n) into dst (len m+1). If x is zero from index
// nz on, the first log2(m/P) stages (P the power of two ≥ ⌈nz/2⌉) are skipped: after bit
// reversal each block of m/P points holds one non-zero at its start, and butterflies
// with a zero partner just copy it, so those stages fill each block with its first value.
func (f *realFFT) Coefficients(dst []complex128, x []float64, nz int) {
	m, z := f.m, f.z
	P := 1
	for P < (nz+1)/2 {
		P *= 2
	}
	P = min(P, m)
	bs := m / P
	if bs > 1 {
		for k := P - 1; k >= 0; k-- { // reversed positions rev(k) = bs·rev_P(k), k < P
			v := complex(x[2*k], x[2*k+1])
			base := int(f.rev[k])
			for j := base; j < base+bs; j++ {
				z[j] = v
			}
		}
		f.stages(z, false, bs)
	} else {
		for k := range z {
			z[k] = complex(x[2*k], x[2*k+1])
		}
		f.cfft(z, false)
	}
	for k := 0; k <= m; k++ {
		zk, zc := z[k%m], z[(m-k)%m]
		zc = complex(real(zc), -imag(zc))
		e, d := zk+zc, zk-zc
		o := complex(imag(d), -real(d)) // (zk − zc)/i
		dst[k] = 0.5 * (e + f.rt[k]*o)
	}
}

// Sequence writes the unnormalised inverse (n·x) of the half spectrum X_0..X_m into
// dst (len n).
func (f *realFFT) Sequence(dst []float64, X []complex128) {
	m, z := f.m, f.z
	for k := range m {
		xc := X[m-k]
		xc = complex(real(xc), -imag(xc))
		w := f.rt[k]
		e, o := X[k]+xc, (X[k]-xc)*complex(real(w), -imag(w))
		z[k] = e + complex(-imag(o), real(o)) // 2(E + i·O)
	}
	f.cfft(z, true)
	for k, v := range z {
		dst[2*k], dst[2*k+1] = real(v), imag(v)
	}
}
