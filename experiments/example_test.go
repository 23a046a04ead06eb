package experiments

import "fmt"

// ExampleDecode decodes a spec (here with a schema that knows the l1 problem and the
// nonprivate reference) and expands its sweep: three axes, of which `only:` keeps the
// two one-axis slices through (n, d) = (20, 2), each cell with the ID and key it has in the
// whole product.
func ExampleDecode() {
	src := `name: example
problem: {kind: l1}
privacy: {epsilon: 1, delta: 0}
sweep:
  n: [10, 20]
  d: [1, 2, 3]
only:
  - {n: 20}
  - {d: 2}
algorithms: [{name: nonprivate}]
`
	s, err := Decode("example.yaml", []byte(src), testSchema())
	if err != nil {
		fmt.Println(err)
		return
	}
	cells, _ := s.Cells()
	for _, c := range cells {
		fmt.Println(c.ID, c.Key)
	}
	// Output:
	// c0001 d=2,n=10
	// c0003 d=1,n=20
	// c0004 d=2,n=20
	// c0005 d=3,n=20
}
