package main

import (
	"context"
	"io"

	"expmech/cli"
	"expmech/experiments"
	"expmech/experiments/runner"
)

// The root tests drive the command line of package cli with the built-in catalog (what
// run.go runs), from the repository root, under these short names.

type usageError = cli.UsageError

const suitePath = cli.SuitePath

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return cli.Run(ctx, args, stdout, stderr, cli.Components{})
}

func report(err error, stderr io.Writer) int { return cli.Exit(err, stderr) }

func registry() runner.Registry {
	reg, err := cli.Registry(cli.Components{})
	if err != nil {
		panic(err) // the built-in catalog has no duplicate name (TestListDescribesEveryEntry)
	}
	return reg
}

func schema(reg runner.Registry) experiments.Schema { return cli.Schema(reg) }

func specPath(exp string) string { return cli.SpecPath(exp) }

func readSuite(path string) ([]string, error) { return cli.ReadSuite(path) }
