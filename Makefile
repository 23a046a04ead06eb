# expmech — make help lists the targets.
GO      ?= go
QUICK   ?=
WORKERS ?= 2
OUT     ?= results
FIGURES ?= figures
SUITE   := $(shell grep -v '^\s*\#' experiments/SUITE 2>/dev/null | grep -v '^\s*$$')
QFLAG   := $(if $(filter 1,$(QUICK)),-quick,)

.PHONY: help test fuzz reproduce audit bench quick clean

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'
	@echo "  variables: QUICK=1 (shrunk sweeps), WORKERS=$(WORKERS), OUT=$(OUT), FIGURES=$(FIGURES)"

test: ## vet, all tests, the runner under -race, a short decoder fuzz (< 5 min)
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./experiments/...
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=10s ./experiments

fuzz: ## fuzz the spec decoder for 2 minutes
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=2m ./experiments

quick: ## the one-minute tour: results/quick and figures/quick
	$(GO) run ./run.go -exp quick.yaml -workers $(WORKERS) -out $(OUT) -figures $(FIGURES)

reproduce: ## every experiment of experiments/SUITE (QUICK=1: shrunk), then REPORT.md
	@test -n "$(SUITE)" || { echo "experiments/SUITE lists no experiment"; exit 2; }
	@for e in $(SUITE); do \
	  echo "== $$e"; \
	  $(GO) run ./run.go -exp $$e $(QFLAG) -workers $(WORKERS) -out $(OUT) -figures $(FIGURES) || exit $$?; \
	done
	@if [ -z "$(QFLAG)" ]; then a=experiments/audit.yaml; else a=experiments/audit_quick.yaml; fi; \
	  echo "== audit ($$a)"; \
	  $(GO) run ./run.go -audit $$a -workers $(WORKERS) -out $(OUT) || exit $$?
	$(GO) run ./run.go -report $(QFLAG) -out $(OUT) -figures $(FIGURES)

audit: ## the privacy audit of experiments/audit.yaml into OUT/audit
	$(GO) run ./run.go -audit experiments/audit.yaml -workers $(WORKERS) -out $(OUT)

bench: ## all benchmarks (benchstat-friendly key=value names)
	$(GO) test -run='^$$' -bench=. -benchmem ./...

clean: ## remove results, figures and REPORT.md
	rm -rf $(OUT) $(FIGURES) REPORT.md
