// Package gauss holds the standard-normal numerics the harness shares between the
// accountant, the samplers and the analysis: the scaled complementary error
// function erfcx, Φ, log Φ, log Φ̄ and Φ⁻¹, and the Gaussian privacy curve
// δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) of Balle–Wang 2018 Thm 8 (GLL22 Thm 6.2
// releases a law whose privacy is this curve; PRIVACY.md §1.1, App. A), and the one-sample
// Kolmogorov–Smirnov statistic with its asymptotic p value (PRIVACY.md §4.2), which the
// audit's law test, the sampler kit and the bias check share; and Normals, the
// ziggurat generator of standard normal variates the proximal sampler's step draws from.
//
// It is a leaf: it imports only the standard library and gonum, so that
// algorithms and analysis can both use it without an import running back up.
package gauss
