"""Sweeper: lists, and with --delete removes, what acceptance tests left behind (a killed run, a failed destroy).

    python tools/sweep.py            # list what carries the test mark (dry run)
    python tools/sweep.py --delete   # delete it (`make sweep`)

What is a test's (the mark; docs/guides/acceptance-testing.md "Sweeping"): the harness tags everything a test's
configuration creates with the fixture's `test_tag` (harness/tags.py), and tests name untaggable objects with the
fixture's `test_prefix`.  Per kind:

* IAM roles, SageMaker compute quotas and cluster scheduler configs, EKS access entries and Pod Identity
  associations: the test tag, read from the object itself (ListRoleTags / ListTags / DescribeAccessEntry /
  DescribePodIdentityAssociation).
* KMS grants on the fixture's key (no tags): the grantee is a role that carries the test tag, or the grant's name
  starts with the prefix.
* Kubernetes objects (no AWS tags): labelled `app.kubernetes.io/managed-by=terraform-provider-hyperpod` and in
  the namespace `hyperpod-ns-<team>` of a compute quota that carries the test tag (their tagged parent), or in a
  namespace whose name starts with the prefix; cluster-scoped, a task view restriction's probe ClusterRole and
  ClusterRoleBinding `hyperpod-studio-probes-<group>` for the Kubernetes group of an access entry with the test tag.
* DataZone connections (no tags): the name starts with the prefix, in the fixture's projects.
* The project member records of bindings (SSM parameters under `/hyperpod-governance/`): the test tag.
* DataZone project memberships and CREATE_PROJECT_FROM_PROJECT_PROFILE policy grants (no tags): the member or
  principal is a test principal, one of the fixture's `datazone.groups` (which exist for the tests only) or a
  group or user whose name starts with the prefix; by name or by its DataZone profile id.

Nothing without the mark is touched: each object is judged before it is listed, and `delete` refuses an object
that was not.  Order: dependents before what marks them (Kubernetes objects before their quota, KMS grants before
their role).

Where: the sandbox when an endpoint is given (--endpoint-url, HYPERPOD_SANDBOX_URL or AWS_ENDPOINT_URL); else the
real account of the caller's credentials, only past the safety guard (harness/guard.py: HYPERPOD_ACCEPT_REAL_ACCOUNT
and the fixture's account_id must both be the caller's).  Do not sweep while a test run is in progress on the same
account: its objects carry the mark too.
"""
import argparse
import base64
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ACCEPTANCE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ACCEPTANCE_DIR))

import boto3  # noqa: E402
import requests  # noqa: E402
from botocore.config import Config  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

from harness.fixture import Fixture, selected_path  # noqa: E402
from harness.guard import GuardError, check_account  # noqa: E402

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "terraform-provider-hyperpod"
TEAM_NAMESPACE = "hyperpod-ns-"
POLICY_TYPE = "CREATE_PROJECT_FROM_PROJECT_PROFILE"
NAMESPACED = [("api/v1", "serviceaccounts"), ("apis/rbac.authorization.k8s.io/v1", "rolebindings"),
              ("apis/rbac.authorization.k8s.io/v1", "roles"), ("apis/networking.k8s.io/v1", "networkpolicies")]
CLUSTER_SCOPED = [("apis/rbac.authorization.k8s.io/v1", "clusterrolebindings"),
                  ("apis/rbac.authorization.k8s.io/v1", "clusterroles")]
PROBES = "hyperpod-studio-probes-"
GONE = ("ResourceNotFoundException", "NoSuchEntity", "NotFoundException", "ValidationException", "ParameterNotFound")
RECORDS = "/hyperpod-governance/"


@dataclass
class Leftover:
    kind: str
    name: str
    why: str  # the mark it carries: printed, and required by delete()
    delete_args: dict = field(default_factory=dict)

    def line(self) -> str:
        return f"{self.kind:<28} {self.name}  [{self.why}]"


class Sweeper:
    def __init__(self, fixture: Fixture, session: boto3.session.Session, endpoint_url: str | None = None,
                 out=sys.stdout):
        self.fx = fixture
        self.session = session
        self.endpoint_url = endpoint_url
        self.out = out
        self.tag_key, self.tag_value = fixture.test_tag.key, fixture.test_tag.value
        self.prefix = fixture.test_prefix
        self.found: list[Leftover] = []
        self.tagged_role_arns: set[str] = set()
        self.tagged_teams: dict[str, set[str]] = {}  # EKS cluster name -> teams of tagged quotas
        self.tagged_groups: dict[str, set[str]] = {}  # EKS cluster name -> Kubernetes groups of tagged access entries

    # ---- clients and marks -------------------------------------------------------------------------------------
    def client(self, service: str):
        cfg = Config(retries={"mode": "standard", "max_attempts": 5})
        kwargs = {"region_name": self.fx.region, "config": cfg}
        if self.endpoint_url:
            kwargs["endpoint_url"] = self.endpoint_url
        return self.session.client(service, **kwargs)

    def tagged(self, tags) -> bool:
        """The test tag, from a {key: value} map or a [{Key, Value}] list."""
        if isinstance(tags, list):
            tags = {t.get("Key"): t.get("Value") for t in tags}
        return (tags or {}).get(self.tag_key) == self.tag_value

    def prefixed(self, name: str | None) -> bool:
        return bool(name and name.startswith(self.prefix))

    def tag_mark(self) -> str:
        return f"tag {self.tag_key}={self.tag_value}"

    def eks_clusters(self) -> list[str]:
        return sorted({c["eks_cluster_name"] for c in self.fx.clusters.raw().values() if c.get("eks_cluster_name")})

    def sagemaker_clusters(self) -> list[tuple[str, str]]:
        """(ARN, EKS cluster name) of the fixture's EKS-orchestrated HyperPod clusters."""
        return [(self.fx.cluster_arn(kind), c["eks_cluster_name"]) for kind, c in self.fx.clusters.raw().items()
                if c.get("eks_cluster_name")]

    # ---- finding -------------------------------------------------------------------------------------------------
    def find(self) -> list[Leftover]:
        """Every marked leftover, in deletion order.  Roles and quotas are read first (they mark grants and
        Kubernetes objects) but listed after what depends on them."""
        roles, quotas, entries = self.find_roles(), self.find_compute_quotas(), self.find_access_entries()
        self.found = (self.find_connections() + self.find_memberships() + self.find_member_records()
                      + self.find_policy_grants()
                      + self.find_kubernetes() + self.find_pod_identity_associations() + entries
                      + self.find_kms_grants() + self.find_scheduler_configs() + quotas + roles)
        return self.found

    def find_roles(self) -> list[Leftover]:
        iam, found = self.client("iam"), []
        for page in iam.get_paginator("list_roles").paginate():
            for role in page["Roles"]:
                name = role["RoleName"]
                if role.get("Path", "/").startswith("/aws-service-role/"):
                    continue  # service-linked: never ours, and not deletable this way
                try:
                    tags = iam.list_role_tags(RoleName=name)["Tags"]
                except ClientError as err:
                    if _code(err) in GONE:
                        continue
                    raise
                if self.tagged(tags):
                    self.tagged_role_arns.add(role["Arn"])
                    found.append(Leftover("iam role", name, self.tag_mark(), {"RoleName": name}))
        return found

    def find_compute_quotas(self) -> list[Leftover]:
        sm, found = self.client("sagemaker"), []
        for cluster_arn, eks_name in self.sagemaker_clusters():
            for page in sm.get_paginator("list_compute_quotas").paginate(ClusterArn=cluster_arn):
                for quota in page["ComputeQuotaSummaries"]:
                    if quota.get("Status") in ("Deleting", "Deleted"):
                        continue
                    tags = sm.list_tags(ResourceArn=quota["ComputeQuotaArn"]).get("Tags", [])
                    if self.tagged(tags):
                        team = (quota.get("ComputeQuotaTarget") or {}).get("TeamName")
                        if team:
                            self.tagged_teams.setdefault(eks_name, set()).add(team)
                        found.append(Leftover("compute quota", f"{quota['Name']} ({quota['ComputeQuotaId']})",
                                              self.tag_mark(), {"ComputeQuotaId": quota["ComputeQuotaId"]}))
        return found

    def find_member_records(self) -> list[Leftover]:
        """The SSM parameters in which bindings record the members they declare."""
        ssm, found = self.client("ssm"), []
        for page in ssm.get_paginator("get_parameters_by_path").paginate(Path=RECORDS, Recursive=True):
            for parameter in page["Parameters"]:
                name = parameter["Name"]
                tags = ssm.list_tags_for_resource(ResourceType="Parameter", ResourceId=name).get("TagList", [])
                if self.tagged(tags):
                    found.append(Leftover("ssm parameter", name, self.tag_mark(), {"Name": name}))
        return found

    def find_scheduler_configs(self) -> list[Leftover]:
        sm, found = self.client("sagemaker"), []
        for cluster_arn, _ in self.sagemaker_clusters():
            pages = sm.get_paginator("list_cluster_scheduler_configs").paginate(ClusterArn=cluster_arn)
            for page in pages:
                for config in page["ClusterSchedulerConfigSummaries"]:
                    if config.get("Status") in ("Deleting", "Deleted"):
                        continue
                    tags = sm.list_tags(ResourceArn=config["ClusterSchedulerConfigArn"]).get("Tags", [])
                    if self.tagged(tags):
                        found.append(Leftover("cluster scheduler config",
                                              f"{config['Name']} ({config['ClusterSchedulerConfigId']})",
                                              self.tag_mark(),
                                              {"ClusterSchedulerConfigId": config["ClusterSchedulerConfigId"]}))
        return found

    def find_access_entries(self) -> list[Leftover]:
        eks, found = self.client("eks"), []
        for cluster in self.eks_clusters():
            for page in eks.get_paginator("list_access_entries").paginate(clusterName=cluster):
                for principal in page["accessEntries"]:
                    try:
                        entry = eks.describe_access_entry(clusterName=cluster, principalArn=principal)["accessEntry"]
                    except ClientError as err:
                        if _code(err) in GONE:
                            continue
                        raise
                    if self.tagged(entry.get("tags")):
                        self.tagged_groups.setdefault(cluster, set()).update(entry.get("kubernetesGroups") or [])
                        found.append(Leftover("eks access entry", f"{cluster} {principal}", self.tag_mark(),
                                              {"clusterName": cluster, "principalArn": principal}))
        return found

    def find_pod_identity_associations(self) -> list[Leftover]:
        eks, found = self.client("eks"), []
        for cluster in self.eks_clusters():
            for page in eks.get_paginator("list_pod_identity_associations").paginate(clusterName=cluster):
                for summary in page["associations"]:
                    try:
                        association = eks.describe_pod_identity_association(
                            clusterName=cluster, associationId=summary["associationId"])["association"]
                    except ClientError as err:
                        if _code(err) in GONE:
                            continue
                        raise
                    if self.tagged(association.get("tags")):
                        name = (f"{cluster} {summary['namespace']}/{summary['serviceAccount']} "
                                f"({summary['associationId']})")
                        found.append(Leftover("eks pod identity association", name, self.tag_mark(),
                                              {"clusterName": cluster, "associationId": summary["associationId"]}))
        return found

    def find_kms_grants(self) -> list[Leftover]:
        if "kms_key_id" not in self.fx:
            return []
        kms, key, found = self.client("kms"), self.fx.kms_key_arn(), []
        for page in kms.get_paginator("list_grants").paginate(KeyId=key):
            for grant in page["Grants"]:
                grantee, name = grant.get("GranteePrincipal", ""), grant.get("Name") or ""
                if grantee in self.tagged_role_arns:
                    why = f"grantee {grantee} is a role with the test tag"
                elif self.prefixed(name):
                    why = f"name starts with {self.prefix}"
                else:
                    continue
                found.append(Leftover("kms grant", f"{name or '-'} ({grant['GrantId']}) to {grantee}", why,
                                      {"KeyId": key, "GrantId": grant["GrantId"]}))
        return found

    def find_kubernetes(self) -> list[Leftover]:
        found = []
        for cluster in self.eks_clusters():
            kube = self.kube(cluster)
            if kube is None:
                continue
            status, body = kube("GET", "/api/v1/namespaces")
            names = [ns["metadata"]["name"] for ns in body.get("items", [])] if status == 200 else []
            teams = self.tagged_teams.get(cluster, set())
            for namespace in names:
                team_of_tagged_quota = namespace.startswith(TEAM_NAMESPACE) and \
                    namespace[len(TEAM_NAMESPACE):] in teams
                if not (team_of_tagged_quota or self.prefixed(namespace)):
                    continue
                why = (f"managed by the provider in {namespace}, the namespace of a compute quota with the test tag"
                       if team_of_tagged_quota else f"managed by the provider in {namespace} (prefix {self.prefix})")
                for api, resource in NAMESPACED:
                    status, listing = kube("GET", f"/{api}/namespaces/{namespace}/{resource}",
                                           params={"labelSelector": f"{MANAGED_BY_LABEL}={MANAGED_BY}"})
                    if status != 200:
                        continue
                    for obj in listing.get("items", []):
                        labels = obj["metadata"].get("labels") or {}
                        if labels.get(MANAGED_BY_LABEL) != MANAGED_BY:
                            continue  # the selector is the server's; the label decides here
                        path = f"/{api}/namespaces/{namespace}/{resource}/{obj['metadata']['name']}"
                        found.append(Leftover("kubernetes object", f"{cluster} {path}", why,
                                              {"cluster": cluster, "path": path}))
            found += self.find_cluster_scoped(cluster, kube)
        return found

    def find_cluster_scoped(self, cluster: str, kube) -> list[Leftover]:
        """A task view restriction's probe ClusterRole and ClusterRoleBinding (`hyperpod-studio-probes-<group>`), for
        the group of an access entry that carries the test tag, or named with the prefix."""
        found, groups = [], self.tagged_groups.get(cluster, set())
        for api, resource in CLUSTER_SCOPED:
            status, listing = kube("GET", f"/{api}/{resource}",
                                   params={"labelSelector": f"{MANAGED_BY_LABEL}={MANAGED_BY}"})
            if status != 200:
                continue
            for obj in listing.get("items", []):
                name = obj["metadata"]["name"]
                if (obj["metadata"].get("labels") or {}).get(MANAGED_BY_LABEL) != MANAGED_BY:
                    continue
                group = name[len(PROBES):] if name.startswith(PROBES) else None
                if group in groups:
                    why = f"managed by the provider, for group {group} of an access entry with the test tag"
                elif self.prefixed(name):
                    why = f"managed by the provider, name starts with {self.prefix}"
                else:
                    continue
                path = f"/{api}/{resource}/{name}"
                found.append(Leftover("kubernetes object", f"{cluster} {path}", why,
                                      {"cluster": cluster, "path": path}))
        return found

    def datazone_projects(self) -> list[str]:
        return [p["id"] for p in self.fx.datazone.projects.raw().values()]

    def test_principal_ids(self, dz) -> set[str]:
        """The fixture's test groups by name and by their DataZone group profile id (what memberships and grants
        report on a real domain), when the domain resolves them."""
        domain = self.fx.datazone.domain_id
        ids = set(self.fx.datazone.get("groups", []))
        for group in list(ids):
            profile = group_profile_id(dz, domain, group)
            if profile:
                ids.add(profile)
        return ids

    def principal_is_test(self, kind: str, ident: str | None, test_ids: set[str], dz=None) -> str | None:
        if not ident:
            return None
        if ident in test_ids:
            return f"{kind} {ident} is one of the fixture's test groups"
        if self.prefixed(ident) or self.prefixed(ident.rsplit("/", 1)[-1]):
            return f"{kind} {ident} starts with {self.prefix}"
        if kind == "user" and dz is not None:
            # A user listed by its profile id: the IAM role (or SSO user) behind it decides.
            try:
                details = dz.get_user_profile(domainIdentifier=self.fx.datazone.domain_id,
                                              userIdentifier=ident).get("details") or {}
            except ClientError:
                return None
            name = (details.get("iam") or {}).get("arn", "").rsplit("/", 1)[-1] \
                or (details.get("sso") or {}).get("username", "")
            if self.prefixed(name):
                return f"user {ident} ({name}) starts with {self.prefix}"
        return None

    def find_connections(self) -> list[Leftover]:
        dz, domain, found = self.client("datazone"), self.fx.datazone.domain_id, []
        for project in self.datazone_projects():
            for page in dz.get_paginator("list_connections").paginate(domainIdentifier=domain,
                                                                       projectIdentifier=project):
                for connection in page["items"]:
                    if self.prefixed(connection.get("name")):
                        found.append(Leftover("datazone connection", f"{project}/{connection['name']}",
                                              f"name starts with {self.prefix}",
                                              {"domainIdentifier": domain,
                                               "identifier": connection["connectionId"]}))
        return found

    def find_memberships(self) -> list[Leftover]:
        dz, domain, found = self.client("datazone"), self.fx.datazone.domain_id, []
        test_ids = self.test_principal_ids(dz)
        for project in self.datazone_projects():
            for page in dz.get_paginator("list_project_memberships").paginate(domainIdentifier=domain,
                                                                               projectIdentifier=project):
                for member in page["members"]:
                    details = member.get("memberDetails") or {}
                    if "group" in details:
                        ident, key = details["group"].get("groupId"), "groupIdentifier"
                    else:
                        ident, key = (details.get("user") or {}).get("userId"), "userIdentifier"
                    why = self.principal_is_test(key[:-10], ident, test_ids, dz)
                    if why:
                        found.append(Leftover("datazone membership",
                                              f"{project} {ident} ({member.get('designation')})", why,
                                              {"domainIdentifier": domain, "projectIdentifier": project,
                                               "member": {key: ident}}))
        return found

    def find_policy_grants(self) -> list[Leftover]:
        dz, domain, found = self.client("datazone"), self.fx.datazone.domain_id, []
        test_ids = self.test_principal_ids(dz)
        units = [u for u in (self.fx.datazone.get("domain_unit_id"), self.fx.datazone.get("root_domain_unit_id")) if u]
        for unit in units:
            pages = dz.get_paginator("list_policy_grants").paginate(
                domainIdentifier=domain, entityType="DOMAIN_UNIT", entityIdentifier=unit, policyType=POLICY_TYPE)
            for page in pages:
                for grant in page["grantList"]:
                    principal = grant.get("principal") or {}
                    group, user = principal.get("group") or {}, principal.get("user") or {}
                    why = (self.principal_is_test("group", group.get("groupIdentifier"), test_ids)
                           or self.principal_is_test("user", user.get("userIdentifier"), test_ids, dz))
                    if why:
                        args = {"domainIdentifier": domain, "entityType": "DOMAIN_UNIT", "entityIdentifier": unit,
                                "policyType": POLICY_TYPE, "principal": principal}
                        if grant.get("grantId"):
                            args["grantIdentifier"] = grant["grantId"]
                        found.append(Leftover("datazone policy grant",
                                              f"{unit} {grant.get('grantId', '-')} to {principal}", why, args))
        return found

    # ---- Kubernetes ---------------------------------------------------------------------------------------------
    def kube(self, cluster: str):
        """A request function for the cluster's Kubernetes API (DescribeCluster's endpoint and CA, an EKS token), or
        None when the cluster is not there."""
        from sandbox.kubernetes import token_for
        try:
            desc = self.client("eks").describe_cluster(name=cluster)["cluster"]
        except ClientError as err:
            if _code(err) in GONE:
                return None
            raise
        ca = Path(tempfile.mkdtemp(prefix="sweep-")) / "ca.pem"
        ca.write_bytes(base64.b64decode(desc["certificateAuthority"]["data"]))
        token = token_for(cluster, self.session, region=self.fx.region, endpoint_url=self.endpoint_url)

        def call(method, path, params=None):
            r = requests.request(method, desc["endpoint"] + path, params=params, verify=str(ca), timeout=20,
                                 headers={"Authorization": f"Bearer {token}"})
            return r.status_code, (r.json() if r.headers.get("Content-Type", "").startswith("application/json")
                                   else {})
        return call

    # ---- deleting -----------------------------------------------------------------------------------------------
    def delete(self, item: Leftover) -> None:
        if item not in self.found or not item.why:
            raise RuntimeError(f"refusing to delete {item.kind} {item.name}: it was not found with the test mark")
        args = item.delete_args
        try:
            if item.kind == "iam role":
                self.delete_role(args["RoleName"])
            elif item.kind == "compute quota":
                self.client("sagemaker").delete_compute_quota(**args)
            elif item.kind == "cluster scheduler config":
                self.client("sagemaker").delete_cluster_scheduler_config(**args)
            elif item.kind == "eks access entry":
                self.client("eks").delete_access_entry(**args)
            elif item.kind == "eks pod identity association":
                self.client("eks").delete_pod_identity_association(**args)
            elif item.kind == "kms grant":
                self.client("kms").revoke_grant(**args)
            elif item.kind == "kubernetes object":
                status, body = self.kube(args["cluster"])("DELETE", args["path"])
                if status not in (200, 202, 404):
                    raise RuntimeError(f"DELETE {args['path']}: {status} {body}")
            elif item.kind == "datazone connection":
                self.client("datazone").delete_connection(**args)
            elif item.kind == "datazone membership":
                self.client("datazone").delete_project_membership(**args)
            elif item.kind == "datazone policy grant":
                self.client("datazone").remove_policy_grant(**args)
            elif item.kind == "ssm parameter":
                self.client("ssm").delete_parameter(**args)
            else:
                raise RuntimeError(f"no way to delete a {item.kind}")
        except ClientError as err:
            if _code(err) not in GONE:
                raise

    def delete_role(self, name: str) -> None:
        iam = self.client("iam")
        for page in iam.get_paginator("list_attached_role_policies").paginate(RoleName=name):
            for policy in page["AttachedPolicies"]:
                iam.detach_role_policy(RoleName=name, PolicyArn=policy["PolicyArn"])
        for page in iam.get_paginator("list_role_policies").paginate(RoleName=name):
            for policy in page["PolicyNames"]:
                iam.delete_role_policy(RoleName=name, PolicyName=policy)
        for page in iam.get_paginator("list_instance_profiles_for_role").paginate(RoleName=name):
            for profile in page["InstanceProfiles"]:
                iam.remove_role_from_instance_profile(RoleName=name,
                                                      InstanceProfileName=profile["InstanceProfileName"])
        iam.delete_role(RoleName=name)

    def run(self, delete: bool) -> int:
        """Lists (and deletes) the leftovers; returns how many failed to delete."""
        found = self.find()
        print(f"{len(found)} leftover(s) with the test mark (tag {self.tag_key}={self.tag_value}, prefix "
              f"{self.prefix}) in account {self.fx.account_id} {self.fx.region}"
              + ("" if delete else "; dry run, --delete removes them"), file=self.out)
        failures = 0
        for item in found:
            if not delete:
                print("  " + item.line(), file=self.out)
                continue
            try:
                self.delete(item)
                print("  deleted " + item.line(), file=self.out)
            except Exception as err:  # noqa: BLE001 - one failure must not stop the sweep of the rest
                failures += 1
                print(f"  FAILED  {item.line()}: {err}", file=self.out)
        return failures


def group_profile_id(dz, domain: str, name: str) -> str | None:
    """The DataZone group profile id of the group called `name`, or None: GetGroupProfile where it takes a name,
    else SearchGroupProfiles with an exact match on the name (the stricter reading: GetGroupProfile takes ids)."""
    try:
        return dz.get_group_profile(domainIdentifier=domain, groupIdentifier=name)["id"]
    except ClientError:
        pass
    for group_type in ("SSO_GROUP", "DATAZONE_SSO_GROUP"):
        try:
            pages = dz.get_paginator("search_group_profiles").paginate(domainIdentifier=domain, groupType=group_type,
                                                                      searchText=name)
            for page in pages:
                for item in page.get("items", []):
                    if item.get("groupName") == name:
                        return item["id"]
        except ClientError:
            continue
    return None


def _code(err: ClientError) -> str:
    return err.response.get("Error", {}).get("Code", "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delete", action="store_true", help="delete what is listed (default: list only)")
    parser.add_argument("--fixture", help="fixture file (default: HYPERPOD_FIXTURE, else fixtures/local.json)")
    parser.add_argument("--endpoint-url", help="the sandbox (default: HYPERPOD_SANDBOX_URL or AWS_ENDPOINT_URL); "
                                               "without one, the real account of the caller's credentials")
    args = parser.parse_args(argv)
    fixture = Fixture.load(args.fixture or selected_path())
    endpoint = args.endpoint_url or os.environ.get("HYPERPOD_SANDBOX_URL") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        has_keys = os.environ.get("AWS_ACCESS_KEY_ID") or os.environ.get("AWS_PROFILE")
        session = boto3.session.Session(region_name=fixture.region, **({} if has_keys else {
            "aws_access_key_id": "testing", "aws_secret_access_key": "testing"}))
    else:
        session = boto3.session.Session(region_name=fixture.region)
    try:
        # The guard, on the sandbox too: a sandbox seeded from another fixture is the wrong target as well.
        account = check_account(fixture, session.client("sts", region_name=fixture.region, endpoint_url=endpoint),
                                environ={**os.environ, "HYPERPOD_ACCEPT_REAL_ACCOUNT": fixture.account_id}
                                if endpoint else None)
    except GuardError as err:
        print(f"sweep: {err}", file=sys.stderr)
        return 2
    print(f"sweeping {'the sandbox at ' + endpoint if endpoint else 'real account ' + account}")
    failures = Sweeper(fixture, session, endpoint).run(args.delete)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
