package rows_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"expmech/rows"
)

// ExampleNewReader streams the records of a results.csv (here three columns of one) and
// reads each column by name: Text as written, Float parsed once (ok = false when empty).
func ExampleNewReader() {
	src := "algorithm,trial,excess_empirical_risk\nexpmech,0,0.125\nnoisy-gd,0,\n"
	rd, err := rows.NewReader(strings.NewReader(src), "results.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		risk, ok := r.Float("excess_empirical_risk")
		fmt.Println(r.Text("algorithm"), r.Line, risk, ok)
	}
	// Output:
	// expmech 2 0.125 true
	// noisy-gd 3 NaN false
}
