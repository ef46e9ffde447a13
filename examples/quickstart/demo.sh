#!/usr/bin/env bash
# `make demo`: start the local AWS sandbox, run terraform init/plan/apply of this quickstart against it with the
# freshly built provider, print the plan's governance report (as a pull request would show it), show what was
# created, prove a second plan is empty, print the refusals and the report of the mis-governed example's plan and
# its refused apply, and stop the sandbox.
# The sandbox is seeded from HYPERPOD_FIXTURE (a fixture file, relative to acceptance-tests/; default: the local
# seed's fixtures/local.json); every name and id below comes from the fixture the sandbox serves.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${HYPERPOD_VENV:-$HOME/.cache/terraform-provider-hyperpod/venv}"
provider_dir="${HYPERPOD_PROVIDER_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/terraform-provider-hyperpod/target}/release}"
[ -x "$provider_dir/terraform-provider-hyperpod" ] || { echo "build the provider first: make build" >&2; exit 1; }

work="$(mktemp -d -t hyperpod-demo-XXXXXX)"
cp "$here"/*.tf "$work/"
fixture="${HYPERPOD_FIXTURE:-fixtures/local.json}"
port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

(cd "$repo/acceptance-tests" && exec "$venv/bin/python" -m sandbox --port "$port" --fixture "$fixture") \
  >"$work/sandbox.log" 2>&1 &
sandbox_pid=$!
trap 'kill "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do
  curl -fs "http://127.0.0.1:$port/_sandbox/health" >/dev/null 2>&1 && break
  kill -0 "$sandbox_pid" 2>/dev/null || { cat "$work/sandbox.log" >&2; exit 1; }
  sleep 0.2
done
echo "== sandbox: $(head -1 "$work/sandbox.log")"
curl -fs "http://127.0.0.1:$port/_sandbox/fixture" >"$work/fixture.json"
# The examples' variables from the fixture (harness/fixture.py), with a review ten days ago: the contracts' fixed
# default date would go overdue (LIF-1, PRJ-3) 90 days after it.
tfvars() {
  (cd "$repo/acceptance-tests" && "$venv/bin/python" - "$work/fixture.json" "$1" <<'PY'
import datetime, json, sys
from harness.fixture import Fixture
variables = Fixture.load(sys.argv[1]).tfvars_for(sys.argv[2])
variables["last_reviewed"] = (datetime.date.today() - datetime.timedelta(days=10)).isoformat()
print(json.dumps(variables, indent=2))
PY
  )
}
tfvars "$here" >"$work/terraform.tfvars.json"
region="$("$venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["region"])' "$work/fixture.json")"

cat >"$work/cli.tfrc" <<TFRC
provider_installation {
  dev_overrides {
    "hyperpod-governance/hyperpod" = "$provider_dir"
  }
  direct {}
}
TFRC
export TF_CLI_CONFIG_FILE="$work/cli.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_REGION="$region" AWS_ACCESS_KEY_ID=testing \
  AWS_SECRET_ACCESS_KEY=testing AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_SESSION_TOKEN
terraform="$venv/bin/terraform"
cd "$work"

step() { echo; echo "== terraform $*"; "$terraform" "$@"; }
# The governance report of a saved plan, as a pull request would show it (examples/ci/): `terraform show -json` of
# the plan and the `terraform plan -json` log (its diagnostics) through the provider binary's `report` subcommand.
report() { # report <plan file> <plan log> <expected exit code>
  "$terraform" show -json "$1" >"$1.json"
  set +e
  "$provider_dir/terraform-provider-hyperpod" report --log "$2" "$1.json"
  local rc=$?
  set -e
  [ "$rc" -eq "$3" ] || { echo "the report exited $rc, expected $3" >&2; exit 1; }
}
step version
step init -input=false -no-color
echo
echo "== terraform plan -out=quickstart.tfplan (then terraform show of it)"
"$terraform" plan -input=false -no-color -json -out=quickstart.tfplan >quickstart.log.jsonl
"$terraform" show -no-color quickstart.tfplan
echo
echo "== the governance report of that plan (terraform-provider-hyperpod report)"
report quickstart.tfplan quickstart.log.jsonl 0
step apply -input=false -no-color quickstart.tfplan
step output -no-color
step state list
echo
echo "== terraform plan (again: must report no changes)"
"$terraform" plan -input=false -no-color -detailed-exitcode >"$work/second-plan.txt" && echo "No changes: the sandbox matches the configuration."
echo
echo "== the sandbox's view (scheduler config, compute quotas, task view restrictions, Studio connections)"
"$venv/bin/python" - "$AWS_ENDPOINT_URL" "$work/fixture.json" <<'PY'
import json, sys, boto3
fx = json.load(open(sys.argv[2]))
client = lambda service: boto3.client(service, endpoint_url=sys.argv[1], region_name=fx["region"],
                                      aws_access_key_id="testing", aws_secret_access_key="testing")
sm = client("sagemaker")
for s in sm.list_cluster_scheduler_configs()["ClusterSchedulerConfigSummaries"]:
    live = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=s["ClusterSchedulerConfigId"])
    print(json.dumps({k: live[k] for k in ("Name", "ClusterArn", "Status", "ClusterSchedulerConfigVersion", "SchedulerConfig")}, indent=2))
for q in sm.list_compute_quotas()["ComputeQuotaSummaries"]:
    print(json.dumps({k: q.get(k) for k in ("Name", "Status", "ComputeQuotaConfig", "ComputeQuotaTarget")}, indent=2))
eks = client("eks")
for team, project in fx["datazone"]["projects"].items():
    role = f"arn:aws:iam::{fx['account_id']}:role/{project['role_name']}"
    policies = eks.list_associated_access_policies(clusterName=fx["clusters"]["eks"]["eks_cluster_name"],
                                                   principalArn=role)
    print(team, "task view:", [(p["policyArn"].rsplit("/", 1)[-1], p["accessScope"]) for p in policies["associatedAccessPolicies"]])
dz = client("datazone")
for team, project in fx["datazone"]["projects"].items():
    for c in dz.list_connections(domainIdentifier=fx["datazone"]["domain_id"], projectIdentifier=project["id"],
                                 type="HYPERPOD")["items"]:
        print(project["name"], "connection:", c["name"], c.get("props", {}))
PY
echo
echo "== the research tenant's namespace in the cluster's Kubernetes API"
"$venv/bin/python" - "$AWS_ENDPOINT_URL" "$work/fixture.json" <<'PY'
import json, sys, urllib.request
eks_cluster = json.load(open(sys.argv[2]))["clusters"]["eks"]["eks_cluster_name"]
cluster = json.load(urllib.request.urlopen(f"{sys.argv[1]}/_sandbox/kubernetes/{eks_cluster}"))
for obj in cluster["objects"]:
    meta = obj["metadata"]
    if "hyperpod-ns-research" in (meta.get("namespace"), meta.get("name")):
        print(f'{obj["kind"]}/{meta["name"]}')
PY
echo
echo "== a mis-governed configuration (examples/misgoverned): the plan names each rule apply would refuse"
mkdir -p "$work/misgoverned"
cp "$repo/examples/misgoverned/"*.tf "$work/misgoverned/"
tfvars "$repo/examples/misgoverned" >"$work/misgoverned/terraform.tfvars.json"
set +e
(cd "$work/misgoverned" && "$terraform" init -input=false -no-color >/dev/null && \
  "$terraform" plan -input=false -no-color -detailed-exitcode) >"$work/misgoverned/plan.txt" 2>&1
rc=$?
set -e
# No rule fails a plan (`terraform destroy` refreshes with one: docs/design/where-rules-run.md): each is a refusal,
# a warning now and an error at apply, before anything of that resource is written.
[ "$rc" -eq 2 ] || { cat "$work/misgoverned/plan.txt"; echo "the mis-governed plan should plan, with refusals (exit $rc)" >&2; exit 1; }
grep -E '^Warning: \[.*\(apply refuses this change\)' "$work/misgoverned/plan.txt" | sort | uniq
for rule in ORG-2 WKL-3 WKL-7 WKL-8; do
  grep -q "\[$rule\].*(apply refuses this change)" "$work/misgoverned/plan.txt" || { echo "missing [$rule] in the mis-governed plan" >&2; exit 1; }
done
echo
echo "== the governance report of the mis-governed plan (exit 1: not compliant)"
(cd "$work/misgoverned" && "$terraform" plan -input=false -no-color -json -out=misgoverned.tfplan \
  >misgoverned.log.jsonl || true)
(cd "$work/misgoverned" && report misgoverned.tfplan misgoverned.log.jsonl 1)
echo
echo "== applying it: the tenant is refused before anything of it is written"
set +e
(cd "$work/misgoverned" && "$terraform" apply -input=false -no-color -auto-approve) >"$work/misgoverned/apply.txt" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$work/misgoverned/apply.txt"; echo "the mis-governed apply should have been refused (exit $rc)" >&2; exit 1; }
grep -E '^Error: \[' "$work/misgoverned/apply.txt" | sort | uniq
grep -q "Refused before anything of this change was written" "$work/misgoverned/apply.txt" || { cat "$work/misgoverned/apply.txt"; exit 1; }
echo "Refused at apply, as the plan warned."
echo
echo "Demo complete. Working directory (state, plan, logs): $work"
