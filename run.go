// Command run is the harness's entry point: the command line of package cli (DESIGN.md
// "Command line") with the built-in catalog and nothing else. `make build` installs it as
// bin/expmech; `go run ./run.go` takes the same flags (`-h` lists them). A module of one's
// own gets the same command with its own components by calling cli.Main
// (EXTENDING.md "Your own module").
package main

import (
	"os"

	"expmech/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Components{}))
}
