# expmech — make help lists the targets.
GO      ?= go
QUICK   ?=
WORKERS ?= 2
OUT     ?= results
FIGURES ?= figures
BIN     := bin/expmech
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
# The privacy audit: three experiments of the same pipeline (README "Privacy audit").
AUDIT   := audit audit_sampler audit_exact

.PHONY: help build code-version lint test test-long fuzz reproduce audit bench quick scaling clean clean-cache FORCE

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'
	@echo "  variables: QUICK=1 (shrunk sweeps, into $(OUT)/quick, $(FIGURES)/quick, REPORT-quick.md), WORKERS=$(WORKERS), OUT=$(OUT), FIGURES=$(FIGURES)"

build: $(BIN) ## bin/expmech: the harness with its specs built in (runs without the source tree)

# -X stamps the hash of the Go sources (the code version -version prints) and the
# closure key of every package, from `go list -deps` (scripts/codekeys): the result cache
# keys each row by the packages its algorithm, problem and the runner import (README
# "Result cache"), so an edit to one sampler or baseline recomputes only the rows that run
# it, and neither a spec edit nor a commit of documents invalidates the cache.
$(BIN): $(GO_SRC) $(wildcard experiments/*.yaml) experiments/SUITE
	keys=$$($(GO) run ./scripts/codekeys) && \
	$(GO) build -o $@ -ldflags "-X expmech/experiments/runner.sourceHash=$(SRC_SHA) -X expmech/experiments/runner.packageKeys=$$keys" .

code-version: ## the result cache's code version that make build stamps (src:<hash of the Go sources>)
	@echo src:$(SRC_SHA)

# bin/expmech.code holds SRC_SHA and changes (mtime included) only when the code does:
# experiments depend on it rather than on the binary, which also embeds every spec and
# would otherwise make one spec edit redo every experiment.
bin/expmech.code: FORCE
	@mkdir -p bin; echo $(SRC_SHA) > $@.tmp; cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# staticcheck pinned (its 2026.2.2 release); installed from the Go module proxy when missing.
STATICCHECK_VERSION := v0.8.2

lint: ## gofmt (no file may need formatting) and staticcheck (pinned; installed if missing)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@command -v staticcheck >/dev/null 2>&1 || [ -x "$$($(GO) env GOPATH)/bin/staticcheck" ] || \
	  $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" staticcheck ./...

test: ## vet, all short tests, the runner's short tests under -race, a 5 s decoder fuzz
	$(GO) vet ./...
	$(GO) test -short -count=1 ./...
	$(GO) test -short -count=1 -race ./experiments/...
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=5s ./experiments

test-long: ## every test, the long ones that make test skips (testing.Short) included; CI runs both
	$(GO) test -count=1 -timeout 30m ./...

fuzz: ## fuzz the spec decoder for 2 minutes
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=2m ./experiments

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

$(REPORT): $(foreach e,$(SUITE) $(AUDIT),$(STAMPS)/$(e).done) | $(BIN)
	$(BIN) -report $(QFLAG) -out $(OUT) -figures $(FIGURES)

reproduce: ## every experiment of experiments/SUITE and the audit that changed (make -j2: in parallel), then REPORT.md (QUICK=1: shrunk, REPORT-quick.md)
	@test -n "$(SUITE)" || { echo "experiments/SUITE lists no experiment"; exit 2; }
	@$(MAKE) --no-print-directory $(REPORT)

audit: ## the privacy audit: the experiments audit, audit_sampler, audit_exact (QUICK=1: CI scale)
	@$(MAKE) --no-print-directory $(foreach e,$(AUDIT),$(STAMPS)/$(e).done)

bench: ## all benchmarks (benchstat-friendly key=value names)
	$(GO) test -run='^$$' -bench=. -benchmem ./...

scaling: $(BIN) ## README "Scaling": time the quick suite with 1 and 2 workers and one experiment in 1, 2, 4, 8 local shards (minutes; SHARD_EXP=erm_rates)
	scripts/scaling.sh

clean: ## remove results (with the result cache and stamps), figures, the reports and bin/
	rm -rf $(OUT) $(FIGURES) REPORT.md REPORT-quick.md bin

clean-cache: ## remove the result cache OUT/.cache only (the next runs recompute every row)
	rm -rf $(OUT)/.cache
