# expmech — make help lists the targets.
GO      ?= go
QUICK   ?=
WORKERS ?= 2
# Experiments make reproduce runs at once (each with WORKERS workers): two keep both cores
# busy through one experiment's serial phases (its last rows, analysis and figures).
JOBS    ?= 2
OUT     ?= results
FIGURES ?= figures
BIN     := bin/expmech
# Every go command make runs compiles without DWARF (the debugger's tables; stack traces
# and profiles use the symbol table, which stays): a cold build of the ~300 packages is
# about a tenth faster, and the binary, the tests and the tools share one build cache
# only when they compile with the same flags, so the flag is set for all of them here.
export GOFLAGS := $(strip $(GOFLAGS) -gcflags=all=-dwarf=false)
SUITE   := $(shell grep -v '^\s*\#' experiments/SUITE 2>/dev/null | grep -v '^\s*$$')
QFLAG   := $(if $(filter 1,$(QUICK)),-quick,)
# Quick runs live apart: OUT/quick/<name>, FIGURES/quick/<name>, their own stamps and
# REPORT-quick.md, so QUICK=1 never replaces a full run.
MODE    := $(if $(QFLAG),quick,full)
STAMPS  := $(OUT)/.stamps/$(MODE)
REPORT  := $(if $(QFLAG),REPORT-quick.md,REPORT.md)
# The binary's code: non-test Go sources, go.mod, go.sum (not the specs it embeds).
GO_SRC  := $(shell find . -name '*.go' ! -name '*_test.go' ! -path './results/*' ! -path './figures/*' ! -path './bin/*' | LC_ALL=C sort) go.mod go.sum
SHA256  := $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo 'shasum -a 256')
SRC_SHA  = $(shell cat $(GO_SRC) | $(SHA256) | cut -c1-64)
# The privacy audit: four experiments of the same pipeline (README "Privacy audit").
AUDIT   := audit audit_paths audit_smooth audit_strongly_convex audit_sampler audit_exact

.PHONY: help build code-version lint deadcode test test-long cover fuzz reproduce audit bench bench-ci bench-baseline quick scaling clean clean-cache FORCE

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'
	@echo "  variables: QUICK=1 (shrunk sweeps, into $(OUT)/quick, $(FIGURES)/quick, REPORT-quick.md), WORKERS=$(WORKERS), JOBS=$(JOBS), OUT=$(OUT), FIGURES=$(FIGURES)"

build: $(BIN) ## bin/expmech: the harness with its specs built in (runs without the source tree)

# -X stamps the hash of the Go sources (the code version -version prints) and the
# closure key of every package, from `go list -deps` (scripts/codekeys): the result cache
# keys each row by the packages its algorithm, problem and the runner import (README
# "Result cache"), so an edit to one sampler or baseline recomputes only the rows that run
# it, and neither a spec edit nor a commit of documents invalidates the cache.
# scripts/gobuild runs go run/build -v and prints a line every 5 s while it compiles: a
# first build with a cold cache takes a minute or more and is not silent.
$(BIN): $(GO_SRC) $(wildcard experiments/*.yaml) experiments/SUITE
	@echo "building $@ (a minute or more the first time: a line every 5 s while it compiles)"
	keys=$$(GO=$(GO) scripts/gobuild "package keys" run ./scripts/codekeys) && \
	GO=$(GO) scripts/gobuild $@ build -o $@ -ldflags "-X expmech/experiments/runner.sourceHash=$(SRC_SHA) -X expmech/experiments/runner.packageKeys=$$keys" .

code-version: ## the result cache's code version that make build stamps (src:<hash of the Go sources>)
	@echo src:$(SRC_SHA)

# bin/expmech.code holds SRC_SHA and changes (mtime included) only when the code does:
# experiments depend on it rather than on the binary, which also embeds every spec and
# would otherwise make one spec edit redo every experiment.
bin/expmech.code: FORCE
	@mkdir -p bin; echo $(SRC_SHA) > $@.tmp; cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# The linters, pinned and installed from the Go module proxy into GOBIN (else GOPATH/bin)
# when missing or of another version: staticcheck v0.8.2 (its 2026.2.2 release) and
# deadcode from golang.org/x/tools v0.52.0.
STATICCHECK_VERSION := v0.8.2
DEADCODE_VERSION    := v0.52.0
TOOLS_BIN = $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)
# $(call pinned,NAME,MODULE,PACKAGE,VERSION): a recipe line that installs PACKAGE@VERSION
# unless TOOLS_BIN/NAME was built from MODULE at VERSION (go version -m reads the binary).
pinned = $(GO) version -m $(TOOLS_BIN)/$(1) 2>/dev/null | \
  awk '$$1 == "mod" && $$2 == "$(2)" && $$3 == "$(4)" { ok = 1 } END { exit !ok }' || \
  $(GO) install $(3)@$(4)

lint: ## gofmt (no file may need formatting), go vet, staticcheck and make deadcode (pinned tools; installed if missing)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@$(call pinned,staticcheck,honnef.co/go/tools,honnef.co/go/tools/cmd/staticcheck,$(STATICCHECK_VERSION))
	$(TOOLS_BIN)/staticcheck ./...
	@$(MAKE) --no-print-directory deadcode

# deadcode walks the call graph (RTA) from the module's main packages, not from the tests,
# so a function that only tests reach is reported as well: it belongs in a _test.go file
# of its package (the test kits, whose job is to be called from tests, are allowed whole).
# `deadcode -test` would root at the tests too and never see a test-only helper in a
# production file. An entry of .ci/deadcode.allow that no longer matches is an error too,
# so the list stays short.
DEADCODE_ALLOW := .ci/deadcode.allow
deadcode: ## dead code: functions no binary reaches, less the commented .ci/deadcode.allow (pinned deadcode; installed if missing)
	@$(call pinned,deadcode,golang.org/x/tools,golang.org/x/tools/cmd/deadcode,$(DEADCODE_VERSION))
	@found=$$(mktemp) && trap 'rm -f "$$found"' EXIT && \
	  $(TOOLS_BIN)/deadcode -f '{{range .Funcs}}{{printf "%s.%s\t%s\n" $$.Path .Name .Position}}{{end}}' ./... > "$$found" && \
	  awk -F'\t' ' \
	    FNR == NR { sub(/#.*/, ""); gsub(/[ \t]/, ""); if ($$0 != "") allow[$$0] = 0; next } \
	    { match($$1, /.*\//); rest = substr($$1, RLENGTH + 1); \
	      pkg = substr($$1, 1, RLENGTH + index(rest, ".") - 1); \
	      if ($$1 in allow) { allow[$$1]++; next } \
	      if ((pkg ".*") in allow) { allow[pkg ".*"]++; next } \
	      print $$2 ": unreachable from the binaries: " $$1; bad++ } \
	    END { for (a in allow) if (allow[a] == 0) { print "$(DEADCODE_ALLOW): no longer dead, remove it: " a; bad++ } \
	      if (bad) { print "deadcode: " bad " finding(s): delete the code, move test-only helpers into a _test.go file, or allow it with a reason in $(DEADCODE_ALLOW)"; exit 1 } \
	      print "deadcode: nothing unreachable beyond $(DEADCODE_ALLOW)" }' $(DEADCODE_ALLOW) "$$found"

# make test is the check before a commit: every package's short tests. Go's test cache
# reruns a package's tests when its code, its test files, or a file or environment
# variable its tests read has changed, but it cannot see what a subprocess reads (git,
# go list, make, pdftotext, a browser, the harness's git provenance): the packages whose
# test binaries link os/exec (FRESH_TESTS, found by go list -test at each run, so the
# list cannot go stale) run afresh (-count=1), the others through the cache. With a warm
# build cache most of the time is linking one test binary per package that runs. go test
# runs vet's high-confidence checks on every package it tests; the full go vet is in make
# lint, the race detector and the fuzzing in make test-long, and CI runs all three.
# Where /dev/shm is a RAM disk, the tests' temporary folders (TMPDIR) and go test's test
# binaries (GOTMPDIR) go there: each file a test makes and removes costs far less system
# time than on this machine's disk (about 1 s of the 30 s).
TESTTMP := $(if $(wildcard /dev/shm/.),TMPDIR=/dev/shm GOTMPDIR=/dev/shm,)
FRESH_TESTS = $(shell $(GO) list -test -f '{{if .ForTest}}{{.ForTest}}|{{join .Deps " "}}{{end}}' ./... | awk -F'|' '$$2 ~ /(^| )os\/exec( |$$)/ { print $$1 }' | LC_ALL=C sort -u)
test: ## all short tests (go test -short, 5 min timeout per package): afresh (-count=1) where a test binary links os/exec, else through go's test cache; temporary files in /dev/shm where it exists; make lint has vet, make test-long the race run and the fuzz
	@fresh="$(FRESH_TESTS)"; [ -n "$$fresh" ] || { echo "make test: go list found no package to run afresh"; exit 1; }; \
	  cached=$$($(GO) list ./... | grep -vxF $$(printf -- '-e %s ' $$fresh)); \
	  echo "$(TESTTMP) $(GO) test -short -timeout 5m <$$(echo $$cached | wc -w) packages, through the test cache>"; \
	  $(TESTTMP) $(GO) test -short -timeout 5m $$cached && \
	  echo "$(TESTTMP) $(GO) test -short -count=1 -timeout 5m $$fresh" && \
	  $(TESTTMP) $(GO) test -short -count=1 -timeout 5m $$fresh

test-long: ## every test (the long ones make test skips too), the runner's short tests under -race, a 5 s decoder fuzz; CI runs it
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -short -count=1 -timeout 10m -race ./experiments/...
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=5s -timeout 5m ./experiments

# Coverage does not gate: it is printed (per package by go test, then the total) so that a
# change that leaves code untested shows. -coverpkg is left at its default (each package's
# own tests), so a package's figure counts only what its own tests exercise.
COVERPROFILE := bin/coverage.out
# Each folder of examples/ is a module of its own (go.mod with replace expmech => ../..)
# that imports expmech and runs its command line with components of its own
# (EXTENDING.md "Your own module"): vetted and tested from its own folder, as a user would.
.PHONY: examples
examples: ## vet and test the example modules under examples/ (their own go.mod: a sampler registered from outside)
	@for m in examples/*/; do echo "examples: $$m"; (cd $$m && $(GO) vet ./... && $(GO) test -count=1 ./...) || exit 1; done

cover: ## the short tests with coverage: per package, the total, and the profile bin/coverage.out (go tool cover -html=bin/coverage.out)
	@mkdir -p $(dir $(COVERPROFILE))
	$(GO) test -short -timeout 5m -coverprofile=$(COVERPROFILE) ./...
	@$(GO) tool cover -func=$(COVERPROFILE) | tail -n 1

fuzz: ## fuzz the spec decoder for 2 minutes
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=2m -timeout 10m ./experiments

quick: $(BIN) ## the one-minute tour: results/quick and figures/quick
	$(BIN) -exp quick -workers $(WORKERS) -out $(OUT) -figures $(FIGURES) -force
	@echo "report: $(OUT)/quick/report.md (in a browser: $(OUT)/quick/report.html); figures: $(FIGURES)/quick/"

# One stamp per experiment of the SUITE and of the audit: redone when its spec or the
# code changes, and only then; rows it already computed come from the result cache
# ($(OUT)/.cache), so -force (replacing the previous run of the same mode) recomputes only
# what changed.
$(STAMPS)/%.done: experiments/%.yaml bin/expmech.code | $(BIN)
	@mkdir -p $(@D)
	@echo "== $*"
	$(BIN) -exp experiments/$*.yaml $(QFLAG) -workers $(WORKERS) -out $(OUT) -figures $(FIGURES) -force
	@touch $@

# Under JOBS=2 the longest experiments start first, so that the run ends on short ones and
# no core idles through a long tail (longest-processing-time order). LONGEST is that hint,
# longest first, from the full run's time on this machine (docs/DESIGN.md "Scale and budgets"); it
# orders the work only (the report's order is the SUITE's), and an experiment missing from
# it runs after those in it.
LONGEST := lowrank audit realdata baselines sampler_bias audit_sampler sampler_field lowrank_gk \
  regime_map lowrank_tuned realdata_reg lowrank_rates rates_delta queries samplers erm_rates \
  regime_map_geomedian lowrank_prior
ORDERED := $(filter $(AUDIT) $(SUITE),$(LONGEST)) $(filter-out $(LONGEST),$(AUDIT) $(SUITE))
$(REPORT): $(foreach e,$(ORDERED),$(STAMPS)/$(e).done) | $(BIN)
	$(BIN) -report $(QFLAG) -out $(OUT) -figures $(FIGURES)

reproduce: ## every experiment of experiments/SUITE and the audit that changed, JOBS=2 at a time, then REPORT.md (QUICK=1: shrunk, REPORT-quick.md)
	@test -n "$(SUITE)" || { echo "experiments/SUITE lists no experiment"; exit 2; }
	@$(MAKE) --no-print-directory -j$(JOBS) $(REPORT)

audit: ## the privacy audit: the experiments audit, audit_paths, audit_smooth, audit_strongly_convex, audit_sampler, audit_exact (QUICK=1: CI scale)
	@$(MAKE) --no-print-directory $(foreach e,$(AUDIT),$(STAMPS)/$(e).done)

# make bench: each SUITE experiment's rows per CPU-second (one quick run on one worker, no
# result cache; CPU = user + system of the whole run) and the sampler's ns/step beside the
# plain-Go kernel, in the Go benchmark format (benchstat reads it), compared with the
# committed BENCH_BASELINE by scripts/bench: a regression is a ratio of medians > 1.25 with
# a one-sided Mann–Whitney p < 0.01 (≥ 4 runs a side, so the suite's single runs are shown,
# not judged). make bench-ci is its cheap part, which CI runs: the sampler only, judged on
# the step relative to the kernel run beside it (a busy or slower machine slows both)
# and on allocs/op. make bench-baseline rewrites the baseline after a deliberate change.
BENCH_BASELINE := testdata/bench/baseline.txt
BENCH_RUNS     ?= 6
BENCH_TIME     ?= 0.3s
BENCH_DIR      := bin/bench
BENCH_CMP      := $(GO) run ./scripts/bench compare
BENCH_CI_RULE  := -ref BenchmarkStep:BenchmarkTightKernel -gate '×BenchmarkTightKernel,allocs/op'

# BENCH_RUNS separate runs of the test binary, so that the step and the kernel of each
# run are measured seconds apart and the runs spread over the machine's ups and downs.
$(BENCH_DIR)/sampler.txt: FORCE
	@mkdir -p $(BENCH_DIR)
	$(GO) test -c -o $(BENCH_DIR)/sampler.test ./algorithms/sampler
	@echo "sampler: BenchmarkStep and BenchmarkTightKernel at d = 10, 100, 1000, $(BENCH_RUNS) runs of $(BENCH_TIME) each"
	@cd algorithms/sampler && for i in $$(seq $(BENCH_RUNS)); do \
	  ../../$(BENCH_DIR)/sampler.test -test.run='^$$' -test.bench='^Benchmark(Step|TightKernel)$$' -test.benchmem -test.benchtime=$(BENCH_TIME) -test.timeout=5m || exit 1; \
	done | grep '^Benchmark' > ../../$@.tmp && mv ../../$@.tmp ../../$@

$(BENCH_DIR)/suite.txt: $(BIN) FORCE
	@mkdir -p $(BENCH_DIR)
	$(GO) run ./scripts/bench suite -bin $(BIN) -tmp $(BENCH_DIR)/runs $(SUITE) > $@.tmp && mv $@.tmp $@

bench: $(BENCH_DIR)/suite.txt $(BENCH_DIR)/sampler.txt ## rows per CPU-second of each SUITE experiment (quick) and the sampler's ns/step beside the plain-Go kernel, against testdata/bench/baseline.txt (minutes)
	@cat $^ > $(BENCH_DIR)/new.txt
	@cat $(BENCH_DIR)/new.txt
	$(BENCH_CMP) $(BENCH_BASELINE) $(BENCH_DIR)/new.txt

bench-ci: $(BENCH_DIR)/sampler.txt ## the sampler's step relative to the plain-Go kernel and its allocs against the baseline; fails on a clear regression (CI runs it; under a minute)
	$(BENCH_CMP) $(BENCH_CI_RULE) $(BENCH_BASELINE) $(BENCH_DIR)/sampler.txt

bench-baseline: $(BENCH_DIR)/suite.txt $(BENCH_DIR)/sampler.txt ## rewrite testdata/bench/baseline.txt from a fresh make bench measurement (after a deliberate speed change; commit it)
	@mkdir -p $(dir $(BENCH_BASELINE))
	@{ echo "# make bench-baseline, $$(date -u +%F), $$(nproc) CPUs, $$($(GO) env GOVERSION)"; cat $^; } > $(BENCH_BASELINE)
	@echo "wrote $(BENCH_BASELINE)"

scaling: $(BIN) ## README "Scaling": time the quick suite with 1 and 2 workers and one experiment in 1, 2, 4, 8 local shards (minutes; SHARD_EXP=erm_rates)
	scripts/scaling.sh

clean: ## remove results (with the result cache and stamps), figures, the reports and bin/
	rm -rf $(OUT) $(FIGURES) REPORT.md REPORT-quick.md bin

clean-cache: ## remove the result cache OUT/.cache only (the next runs recompute every row)
	rm -rf $(OUT)/.cache

# The mutation suite and seed stability (DESIGN.md "Mutation suite and seed stability"):
# scripts/mutate applies each plant of scripts/mutate/plants.yaml to a copy of the tree,
# runs the experiments that should catch it (-quick, -no-cache) and an unmutated control,
# and writes OUT/mutate/mutate.{csv,md}; seeds reruns SEED_EXPS under SEEDS master seeds
# into OUT/mutate/seeds.{csv,md} (SEED_FULL=1: the full sweeps and trials, not -quick).
# MUTATE_JOBS plants (seed runs) at a time.
MUTATE_JOBS ?= 2
SEEDS       ?= 5
SEED_EXPS   ?= sco_rates,strongly_convex
SEED_FULL   ?=
.PHONY: mutate mutate-fast mutate-check seeds
mutate: ## the mutation suite: every plant of scripts/mutate/plants.yaml, killed/weak/survived and the kill rate per family (budget: DESIGN.md)
	$(GO) run ./scripts/mutate -jobs $(MUTATE_JOBS) -out $(OUT)/mutate

mutate-fast: ## the CI subset of the mutation suite: the 6 plants marked fast (one per family), each on its cheapest catcher; fails unless every one is killed
	$(GO) run ./scripts/mutate -fast -jobs $(MUTATE_JOBS) -out $(OUT)/mutate/fast

mutate-check: ## every plant still applies to the tree (old text found exactly once); runs nothing
	$(GO) run ./scripts/mutate -check

seeds: ## seed stability: SEED_EXPS (quick; SEED_FULL=1 full) under SEEDS master seeds, each check's verdict fraction, flips flagged
	$(GO) run ./scripts/mutate -seeds $(SEEDS) -exp $(SEED_EXPS) -jobs $(MUTATE_JOBS) -out $(OUT)/mutate $(if $(SEED_FULL),-full)
