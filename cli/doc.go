// Package cli is the harness's command line (DESIGN.md "Command line": the synopsis and the
// flags; `expmech -h` lists them) as a library: Main builds the registry of problems,
// mechanisms and samplers (the built-in catalog plus the components a caller passes in),
// decodes and validates a spec, hands it to the runner and then to the analysis, and maps
// the error to an exit status (0 ok; 2 invalid spec or flags, a finished run in the way or a
// folder another run is writing; 1 failure while running). The repository's run.go is Main
// with no extra components; a module of one's own calls Main with its own (EXTENDING.md
// "Your own module"). The privacy audit is the experiments audit, audit_paths,
// audit_smooth, audit_strongly_convex, audit_sampler and audit_exact (`make audit`).
package cli
