// Package linear generates the linear-loss family f(x; z) = ⟨x, z⟩ on the ℓ2 ball or the
// box: Bassily–Smith–Thakurta 2014's hard family (z ∈ {±G/√d}^d ∪ {0}; LLL24 Table 1 and
// App. D; SPEC §5.5), as a biased random sample whose mean has a set norm or as the hard
// instance "n* copies of one z, the rest 0". Optimum and population risk are closed forms.
package linear
