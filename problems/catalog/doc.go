// Package catalog lists every problem generator of the harness in a stable order
// (DESIGN.md "Names the specs use"), for the registry run.go builds. It holds no state:
// All returns fresh values.
package catalog
