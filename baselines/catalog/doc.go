// Package catalog lists every baseline's registry line in a stable order, for run.go to
// build its mechanism registry from (DESIGN.md "Data flow": registries are values, no
// init() self-registration).
package catalog
