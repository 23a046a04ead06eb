// Package perturb implements the two perturbation baselines for smooth convex ERM:
// output-perturbation (Chaudhuri–Monteleoni–Sarwate 2011 §3, Gaussian version; SPEC §6.7,
// PRIVACY.md §1.0 (d1)): the minimiser of the λ-regularised objective plus Gaussian
// noise calibrated to its replace-one sensitivity 2G/(nλ); and objective-perturbation
// (Kifer–Smith–Thakurta 2012 Thm 2, Gaussian; SPEC §6.7 [REC]) for smooth GLMs, whose
// conditions (a rank-one Hessian bounded by β, gradients bounded by G) are checked and the
// run refused when they fail.
package perturb
