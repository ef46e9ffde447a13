#!/usr/bin/env bash
# The governance report of a configuration's plan, as a plain shell pipeline (what github-actions.yml does, without
# GitHub): init, plan to a file with its JSON log, the plan as JSON, then the report of both.
#
#   examples/ci/pipeline.sh [CONFIG_DIR]          # default: the current directory
#   TF=tofu examples/ci/pipeline.sh infra/hyperpod  # OpenTofu instead of Terraform (both >= 1.11)
#
# Writes tfplan, plan.log.jsonl, plan.json and report.md in CONFIG_DIR and prints the report (Markdown) on stdout;
# Terraform's own output goes to stderr. Exits with the report's code: 0 compliant, 1 not compliant (a failed rule:
# a refusal the plan warned of, which apply would return as an error; an error; an errored plan), 2 compliant but
# needs attention (warnings, skipped or deferred checks), 3 the input could not be read. No governance rule fails
# `terraform plan` (docs/design/where-rules-run.md), so this exit code, not the plan's, is what fails a pull request.
# A CI step that should pass on "needs attention": `pipeline.sh || [ $? -eq 2 ]`.
#
# The report is a subcommand of the provider binary that `init` installed (.terraform/providers/…); REPORT_BIN names
# another one (e.g. a local build: target/release/terraform-provider-hyperpod).
set -uo pipefail # no -e: a plan that fails (on a configuration it cannot read) is what the report explains

tf="${TF:-terraform}"
cd "${1:-.}" || exit 3

"$tf" init -input=false -no-color >&2 || exit 3
# -json: the diagnostics (rule IDs, addresses, ranges) the plan file does not keep, refusals among them (warnings
# ending "(apply refuses this change)"). A plan with refusals exits 0. A plan that fails (rc 1: a handoff that can
# never be decoded) still writes tfplan, marked errored, unless it failed before planning (a syntax error, an
# attribute validator): then there is nothing to report.
"$tf" plan -input=false -json -out=tfplan >plan.log.jsonl
plan_rc=$?
if [ ! -s tfplan ]; then
  echo "pipeline: $tf plan exited $plan_rc and wrote no plan file; its log: $PWD/plan.log.jsonl" >&2
  exit 1
fi
"$tf" show -json tfplan >plan.json || exit 3

report="${REPORT_BIN:-}"
if [ -z "$report" ]; then
  # registry.terraform.io/… for Terraform, registry.opentofu.org/… for OpenTofu; the newest if several.
  report="$(find .terraform/providers -type f -path '*/hyperpod-governance/hyperpod/*' \
    -name 'terraform-provider-hyperpod_v*' 2>/dev/null | sort -V | tail -n 1)"
fi
if [ -z "$report" ] || [ ! -x "$report" ]; then
  echo "pipeline: no terraform-provider-hyperpod under $PWD/.terraform/providers (set REPORT_BIN)" >&2
  exit 3
fi

"$report" report --log plan.log.jsonl plan.json >report.md
report_rc=$?
cat report.md
exit "$report_rc"
