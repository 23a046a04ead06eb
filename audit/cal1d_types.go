package audit

// cal1D is a (k, μ) calibration of the exponential mechanism with its claimed s and δ_mech.
type cal1D struct {
	k, mu, s, deltaMech float64
	source              string
}

// exactEpsGrid is the ε grid of PRIVACY.md §3.1 step 4.
var exactEpsGrid = []float64{0, 0.5, 1, 2, 4, 6}
