// Package cli is the harness's command line (DESIGN.md "Command line") as a library: Main
// builds the registry of problems, mechanisms and samplers — the built-in catalog plus the
// components a caller passes in — decodes and validates a spec, hands it to the runner and
// then to the analysis, and maps the error to an exit status (0 ok, 2 invalid spec or
// flags, a finished run in the way or a folder another run is writing, 1 failure while running). The repository's run.go
// is Main with no extra components; a module of one's own calls Main with its own
// (EXTENDING.md "Your own module"), and gets every flag below.
//
//	expmech -exp NAME|PATH [-out DIR] [-figures DIR] [-workers N] [-trials N]
//	        [-quick] [-dry-run [-price RESULTS.csv]] [-resume] [-force] [-no-cache] [-cache DIR]
//	        [-shard I/N] [-seed S] [-only cell=K,algorithm=A,trial=T] [-v]
//	expmech -merge DIR/NAME [-figures DIR] [-force]
//	expmech -list | -version
//	expmech -report [-quick]          # REPORT.md (REPORT-quick.md): experiments/SUITE and the audit of that mode; OUT/index.html
//	expmech -compare OLD NEW [-metrics m1,m2] [-out DIR]   # OLD, NEW: experiment folders
//
// The privacy audit is the experiments audit, audit_paths, audit_smooth, audit_strongly_convex, audit_sampler and audit_exact (`make audit`).
package cli
