// Package dataset loads problem data (DESIGN.md "Data files"): CSV files (a header row,
// one example per row, every column a coordinate except the label column "y" of
// glm/lowrank) and LIBSVM/svmlight files (sparse "label index:value …" lines, 1- or
// 0-based indices, read dense). Every error names the file, the row (1-based line number)
// and the column. Rescaling keeps the generators' stated Lipschitz constants true (SPEC
// §0, §8.2) or refuses the data.
package dataset
