package auditing

// exactEpsGrid is the ε grid of PRIVACY.md §3.1 step 4.
var exactEpsGrid = []float64{0, 0.5, 1, 2, 4, 6}
