#!/usr/bin/env bash
# `make demo`: start the local AWS sandbox, run terraform init/plan/apply of this quickstart against it with the
# freshly built provider, show what was created, prove a second plan is empty, and stop the sandbox.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${HYPERPOD_VENV:-$HOME/.cache/terraform-provider-hyperpod/venv}"
provider_dir="${HYPERPOD_PROVIDER_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/terraform-provider-hyperpod/target}/release}"
[ -x "$provider_dir/terraform-provider-hyperpod" ] || { echo "build the provider first: make build" >&2; exit 1; }

work="$(mktemp -d -t hyperpod-demo-XXXXXX)"
cp "$here"/*.tf "$work/"
# A review ten days ago: the contracts' fixed default date would go overdue (LIF-1, PRJ-3) 90 days after it.
echo "last_reviewed = \"$(date -u -d '10 days ago' +%F)\"" >"$work/terraform.tfvars"
port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

(cd "$repo/acceptance-tests" && exec "$venv/bin/python" -m sandbox --port "$port") >"$work/sandbox.log" 2>&1 &
sandbox_pid=$!
trap 'kill "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do
  curl -fs "http://127.0.0.1:$port/_sandbox/health" >/dev/null 2>&1 && break
  kill -0 "$sandbox_pid" 2>/dev/null || { cat "$work/sandbox.log" >&2; exit 1; }
  sleep 0.2
done
echo "== sandbox: $(head -1 "$work/sandbox.log")"

cat >"$work/cli.tfrc" <<TFRC
provider_installation {
  dev_overrides {
    "hyperpod-governance/hyperpod" = "$provider_dir"
  }
  direct {}
}
TFRC
export TF_CLI_CONFIG_FILE="$work/cli.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_REGION=us-west-2 AWS_ACCESS_KEY_ID=testing \
  AWS_SECRET_ACCESS_KEY=testing AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_SESSION_TOKEN
terraform="$venv/bin/terraform"
cd "$work"

step() { echo; echo "== terraform $*"; "$terraform" "$@"; }
step version
step init -input=false -no-color
step plan -input=false -no-color -out=quickstart.tfplan
step apply -input=false -no-color quickstart.tfplan
step output -no-color
step state list
echo
echo "== terraform plan (again: must report no changes)"
"$terraform" plan -input=false -no-color -detailed-exitcode >"$work/second-plan.txt" && echo "No changes: the sandbox matches the configuration."
echo
echo "== the sandbox's view (scheduler config, compute quotas, task view restrictions, Studio connections)"
"$venv/bin/python" - "$AWS_ENDPOINT_URL" <<'PY'
import json, sys, boto3
sm = boto3.client("sagemaker", endpoint_url=sys.argv[1], region_name="us-west-2",
                  aws_access_key_id="testing", aws_secret_access_key="testing")
for s in sm.list_cluster_scheduler_configs()["ClusterSchedulerConfigSummaries"]:
    live = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=s["ClusterSchedulerConfigId"])
    print(json.dumps({k: live[k] for k in ("Name", "ClusterArn", "Status", "ClusterSchedulerConfigVersion", "SchedulerConfig")}, indent=2))
for q in sm.list_compute_quotas()["ComputeQuotaSummaries"]:
    print(json.dumps({k: q.get(k) for k in ("Name", "Status", "ComputeQuotaConfig", "ComputeQuotaTarget")}, indent=2))
eks = boto3.client("eks", endpoint_url=sys.argv[1], region_name="us-west-2",
                   aws_access_key_id="testing", aws_secret_access_key="testing")
for team in ("production", "research"):
    role = f"arn:aws:iam::123456789012:role/datazone_usr_role_{team}"
    policies = eks.list_associated_access_policies(clusterName="ml-capacity-eks", principalArn=role)
    print(team, "task view:", [(p["policyArn"].rsplit("/", 1)[-1], p["accessScope"]) for p in policies["associatedAccessPolicies"]])
dz = boto3.client("datazone", endpoint_url=sys.argv[1], region_name="us-west-2",
                  aws_access_key_id="testing", aws_secret_access_key="testing")
for project in ("production0001", "research000001"):
    for c in dz.list_connections(domainIdentifier="dzd_capacity01", projectIdentifier=project, type="HYPERPOD")["items"]:
        print(project, "connection:", c["name"], c.get("props", {}))
PY
echo
echo "== the research tenant's namespace in the cluster's Kubernetes API"
"$venv/bin/python" - "$AWS_ENDPOINT_URL" <<'PY'
import json, sys, urllib.request
cluster = json.load(urllib.request.urlopen(f"{sys.argv[1]}/_sandbox/kubernetes/ml-capacity-eks"))
for obj in cluster["objects"]:
    meta = obj["metadata"]
    if "hyperpod-ns-research" in (meta.get("namespace"), meta.get("name")):
        print(f'{obj["kind"]}/{meta["name"]}')
PY
echo
echo "== a mis-governed configuration (examples/misgoverned): the plan must fail, naming each rule"
mkdir -p "$work/misgoverned"
cp "$repo/examples/misgoverned/"*.tf "$work/misgoverned/"
set +e
(cd "$work/misgoverned" && "$terraform" init -input=false -no-color >/dev/null && \
  "$terraform" plan -input=false -no-color) >"$work/misgoverned/plan.txt" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$work/misgoverned/plan.txt"; echo "the mis-governed plan should have failed (exit $rc)" >&2; exit 1; }
grep -E '^(Error|Warning): \[' "$work/misgoverned/plan.txt" | sort | uniq
for rule in ORG-2 WKL-3 WKL-7 WKL-8; do
  grep -q "\[$rule\]" "$work/misgoverned/plan.txt" || { echo "missing [$rule] in the mis-governed plan" >&2; exit 1; }
done
echo "The plan failed before anything was created, as it should."
echo
echo "Demo complete. Working directory (state, plan, logs): $work"
