// Package gauss holds the standard-normal numerics that the accountant, the samplers and
// the analysis share: erfcx, Φ, log Φ, log Φ̄ and Φ⁻¹; the Gaussian privacy curve
// δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) of Balle–Wang 2018 Thm 8 (GLL22 Thm 6.2
// releases a law whose privacy is this curve; PRIVACY.md §1.1, App. A); the one-sample
// Kolmogorov–Smirnov statistic with its asymptotic p value (PRIVACY.md §4.2); and Normals,
// the ziggurat generator the proximal sampler's step draws from. A leaf (the standard
// library and gonum only), so that algorithms and analysis can both import it.
package gauss
