// Package perturb implements the two perturbation baselines of SPEC §6.7 for smooth
// convex ERM: output-perturbation (Chaudhuri–Monteleoni–Sarwate 2011 §3, Gaussian version;
// PRIVACY.md §1.0 (d1)), the regularised minimiser plus Gaussian noise of its replace-one
// sensitivity 2G/(nλ); and objective-perturbation (Kifer–Smith–Thakurta 2012 Thm 2,
// Gaussian [REC]) for smooth GLMs, refused when the theorem's conditions fail (check).
package perturb
