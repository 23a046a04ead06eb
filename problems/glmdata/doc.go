// Package glmdata is the "glm-data" generator: a generalised linear model (logistic,
// hinge or absolute loss, package glm) on a real CSV or LIBSVM data file, with a public,
// data-independent feature map (per-feature bounds from the data set's documentation,
// clipped, then normalised to ‖a‖ ≤ A), a fixed public train/test split by row index, and
// per-trial subsamples of the training split (DESIGN.md "Data files"). The dimension d, a
// LIBSVM file's index base and every constant of the map are required spec keys, never
// read off the file (a file that disagrees is refused at its line): nothing a row publishes
// can tell neighbouring datasets apart, and since the map bounds every row by construction
// and no constant is measured from the file, the guarantee of every mechanism calibrated on
// its constants (G_f = A, G_Δ = 2A: SPEC §0, §8.2; replace-one) holds for every dataset.
package glmdata
