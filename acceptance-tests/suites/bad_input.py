"""Bad-input cases for every resource, attribute and nested block attribute of the provider, generated from its schema
(`terraform providers schema -json`) and a known-good base configuration per resource valid against the sandbox's seed.

A case is one resource instance: the base block with one attribute (path) given one kind of bad value. Cases of one
resource type are independent instances in one configuration (`Batch`), so one validate, one plan and one apply judge
them all; the runner is test_bad_input.py. What each case must get: a diagnostic whose range lies on the mutated
attribute's line(s) (an error at validate or plan, or a refusal: the plan's warning that apply refuses the change,
then apply's error there, before anything of it is written), or an apply that converges (the next plan has no change
for it). A case that leaves a handoff object unreadable (`Case.must_be_invalid`) must get the error: no refusal.

Kinds by type: strings (empty, 10 000 characters, control characters U+0001 / newline / tab, non-ASCII, leading and
trailing spaces), numbers (fractional, 1e30, negative, zero), lists, sets and maps (empty, duplicates, a null element,
a control character in an element or key), objects (each field null), nested blocks (each nested attribute null, no
block, one block too many), and unknown (the base value behind a condition on a `terraform_data` known only after
apply). Values that cannot interfere across cases (names, teams, groups, connection names) are made distinct per case.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness import current_fixture

PROVIDER_KEY = "registry.terraform.io/hyperpod-governance/hyperpod"
UNKNOWN_GUARD = 'terraform_data.unknown.id != ""'
OVERSIZE = 'format("%010000d", 0)'  # 10 000 characters ("000...0")
BASE = "\u0000BASE\u0000"  # placeholder in a kind's expression for the case's own good value

# ---- a tiny HCL model: the base configuration as data we can mutate by path and render with line numbers ----------


@dataclass
class Attr:
    name: str
    expr: str  # an HCL expression


@dataclass
class Block:
    name: str
    body: list  # [Attr | Block]
    dynamic_unknown: bool = False  # rendered as a dynamic block whose for_each is known only after apply


def q(value: str) -> str:
    """An HCL string literal (JSON escaping is valid HCL, \\uNNNN included); `${` and `%{` are escaped."""
    return json.dumps(value, ensure_ascii=False).replace("${", "$${").replace("%{", "%%{")


def hlist(values) -> str:
    return "[" + ", ".join(values) + "]"


def render(body: list, indent: int, out: list[str], marks: dict, target: tuple, prefix: tuple = ()) -> None:
    """Append the body's lines to `out`; marks[target] = (first, last) 1-based lines of the target path."""
    pad = "  " * indent
    for item in body:
        path = prefix + (item.name,)
        first = len(out) + 1
        if isinstance(item, Attr):
            lines = item.expr.split("\n")
            out.append(f"{pad}{item.name} = {lines[0]}")
            out.extend(lines[1:])
        elif item.dynamic_unknown:
            out.append(f'{pad}dynamic "{item.name}" {{')
            out.append(f"{pad}  for_each = {UNKNOWN_GUARD} ? [1] : []")
            out.append(f"{pad}  content {{")
            render(item.body, indent + 2, out, marks, target, path)
            out.append(f"{pad}  }}")
            out.append(f"{pad}}}")
        else:
            out.append(f"{pad}{item.name} {{")
            render(item.body, indent + 1, out, marks, target, path)
            out.append(f"{pad}}}")
        if path == target and (isinstance(item, Block) or target not in marks):
            # a repeated block: from the first one's first line to the last one's last
            marks[target] = (marks.get(target, (first, 0))[0], len(out))


# ---- base configurations (valid against the run's fixture: its domain, unit, research and production projects,
# its EKS cluster, the sandbox-only legacy EKS cluster and the Slurm cluster) ------------------------------------------

FX = current_fixture()
ACCOUNT = FX.account_id
REGION = FX.region
ROLE = f"arn:aws:iam::{ACCOUNT}:role"
CLUSTER = FX.clusters.eks.name


def contract_body(name: str, project: str = "research", namespaces=("hyperpod-ns-research",),
                  cluster: str = CLUSTER, project_id: str | None = None, project_role_arn: str | None = None) -> list:
    """A contract for one of the fixture's projects (`project` is its team key), or for a project the sandbox's
    `teams` fixture added (`project_id` and `project_role_arn` given)."""
    project_id = project_id or FX.project(project).id
    project_role_arn = project_role_arn or FX.project_role_arn(project)
    return [
        Attr("name", q(name)),
        Block("owners", [Attr("business", q("head-of-research@example.com")),
                         Attr("operations", q("ml-platform-oncall@example.com")),
                         Attr("cost", q("finance-ml@example.com"))]),
        Block("unified_studio", [Attr("domain_id", q(FX.datazone.domain_id)),
                                 Attr("domain_unit_id", q(FX.datazone.domain_unit_id)),
                                 Attr("project_id", q(project_id))]),
        Block("cluster", [Attr("account_id", q(ACCOUNT)), Attr("region", q(REGION)), Attr("name", q(cluster)),
                          Attr("orchestrator", q("eks"))]),
        Attr("project_role_arn", q(project_role_arn)),
        Attr("access_role_arn", q(FX.role_arn(FX.roles.connection_access))),
        Attr("approved_workload_types", hlist([q("training"), q("interactive")])),
        Attr("data_classification", q("internal")),
        Attr("eks_namespaces", hlist(q(n) for n in namespaces)),
        Attr("approved_account_ids", hlist([q(FX.consumer_account_id)])),
        Attr("approved_public_cidrs", hlist([q(FX.approved_public_cidr)])),
        Block("scheduling", [Attr("policy", q("borrow idle capacity at low priority")),
                             Attr("exception_owner", q("ml-platform-leads@example.com"))]),
        Block("monitoring", [Block("signal", [Attr("name", q("team-utilization")),
                                              Attr("owner", q("research-leads@example.com")),
                                              Attr("response", q("rebalance quotas at the monthly review"))])]),
        Attr("support", q("ml-platform on-call, business hours")),
        Attr("decommission", q("remove the binding, then the tenant; archive data for 90 days")),
        Block("review", [Attr("interval_days", "90"), Attr("last_reviewed", q("2026-11-20")),
                         Attr("approved_by", q("security-lead@example.com"))]),
    ]


# Samples of good values for optional attributes the base leaves out (so their bad variants and unknown have a base).
SAMPLES: dict[str, dict[str, Any]] = {
    "hyperpod_connection_contract": {
        "lifecycle_state": q("approved"), "strict": "false",
        "organization": "hyperpod_domain_unit_policy_grant.org.governance",
        "exception": [Attr("rule", q("WKL-8")), Attr("owner", q("ml-platform-leads@example.com")),
                      Attr("expires", q("2027-01-31")), Attr("reason", q("legacy notebooks need open egress"))],
    },
    "hyperpod_domain_unit_policy_grant": {"include_child_domain_units": "false"},
    "hyperpod_scheduling_policy": {"name": q("bad-input-policy"),
                                   "timeouts": [Attr("create", q("10m")), Attr("update", q("10m")),
                                                Attr("delete", q("10m"))]},
    "hyperpod_task_view_restriction": {
        "mode": q("access_policy"), "kubernetes_group": q("hyperpod-task-viewers"), "space_templates": "false",
        "access_policies": hlist([q("AmazonSagemakerHyperpodTrainingPolicy")]),
        "timeouts": [Attr("create", q("10m")), Attr("update", q("10m")), Attr("delete", q("10m"))],
    },
    "hyperpod_tenant": {
        "activation_state": q("Enabled"), "fair_share_weight": "10", "preempt_team_tasks": q("Never"),
        "viewer_principal_arns": hlist([q(FX.role_arn(FX.roles.research_viewers))]),
        "operator_principal_arns": hlist([q(FX.role_arn(FX.roles.research_operators))]),
        "viewer_verbs": hlist([q("get"), q("list")]), "operator_verbs": hlist([q("get"), q("delete")]),
        "tags": '{ "cost-center" = "research" }',
        "network_policy": [Attr("default_deny", "true"), Attr("allow_dns", "true"),
                           Attr("allow_same_namespace", "true"), Attr("egress_cidrs", hlist([q("10.20.0.0/16")]))],
        "data": [Attr("kms_keys", hlist([q(FX.kms_key_arn())])), Attr("buckets", hlist([q(FX.data_bucket)]))],
        "timeouts": [Attr("create", q("10m")), Attr("update", q("10m")), Attr("delete", q("10m"))],
        "target_role_arn": q(FX.consumer_role_arn()),
        "session_policy": "jsonencode({ Version = \"2012-10-17\", Statement = [{ Effect = \"Allow\", "
                          "Action = \"s3:GetObject\", Resource = \"*\" }] })",
        "accelerators": "8", "memory_gib": "64", "vcpu": "32", "borrow_limit": "50",
    },
    "hyperpod_unified_studio_project_binding": {
        "domain_id": q(FX.datazone.domain_id), "kind": q("group"),
        "timeouts": [Attr("create", q("10m")), Attr("delete", q("10m"))],
    },
}


@dataclass
class ResourceSpec:
    """How to make one resource type's cases: its base body (given a per-case suffix for unique names), the
    configuration its cases share (contracts, a grant, ...), and which cases may not be applied together."""
    type: str
    base: Callable[[str], list]  # suffix -> body
    shared: str = ""  # HCL every batch of this type includes
    exclusive: Callable[[Case], object] | None = None  # case -> slot key; cases of one key: applied one at a time
    skip: tuple = ()  # attribute paths not generated (computed-only are skipped anyway)
    # Instances of TENANT_INSTANCE_TYPE the runner adds to the EKS cluster first (the sandbox's `teams` fixture), so the
    # guaranteed quotas of every tenant case fit the cluster together (WKL-3 sums them at apply).
    capacity: int = 0
    slots: int = 2  # for exclusive resources: independent AWS objects (cases in different slots may coexist)
    teams: int = 0  # fixture teams the runner adds first (their ids are passed to specs())


def grant_base(suffix: str) -> list:
    return [Attr("domain_id", q(FX.datazone.domain_id)), Attr("domain_unit_id", q(FX.datazone.domain_unit_id)),
            Attr("project_profile_ids", hlist([q(FX.datazone.project_profile_id)])),
            Block("principal", [Attr("group_id", q(f"bad-input-{suffix}"))])]


def slot(suffix: str, slots: int = 2) -> int:
    """Which of `slots` independent AWS objects a case of an exclusive resource uses (round robin by case number)."""
    return int(suffix) % slots


def scheduling_base(suffix: str) -> list:
    return [Attr("cluster_name", q((CLUSTER, FX.clusters.legacy.name)[slot(suffix)])),
            Attr("description", q("Production first")), Attr("fair_share", "true"),
            Attr("idle_resource_sharing", "true"),
            Block("priority_class", [Attr("name", q("production")), Attr("weight", "90")]),
            Block("priority_class", [Attr("name", q("research")), Attr("weight", "10")]),
            Attr("tags", '{ "cost-center" = "ml-platform" }')]


# The sandbox's `teams` fixture adds this many projects like research (bad-input001...), so this many more task view
# restrictions can be applied at a time: one per project role.
RESTRICTION_TEAMS = 6
RESTRICTION_SLOTS = 2 + RESTRICTION_TEAMS


def restriction_base(suffix: str) -> list:
    return [Attr("contract", f"hyperpod_connection_contract.slot{slot(suffix, RESTRICTION_SLOTS)}.governance")]


def restriction_contracts(teams: dict) -> str:
    """One contract per slot: research, production, then each fixture team ({team: {project_id, ...}})."""
    projects: list[tuple[str, dict]] = [("research", {}), ("production", {})] + [
        (team, {"project_id": info["project_id"], "project_role_arn": info["project_role_arn"]})
        for team, info in sorted(teams.items())]
    return "".join(contract_resource(f"slot{i}", contract_body(
        f"bad-input-{team}", project=team, namespaces=(f"hyperpod-ns-{team}",), **ids))
        for i, (team, ids) in enumerate(projects[:RESTRICTION_SLOTS]))


TENANT_INSTANCE_TYPE = "ml.g5.xlarge"  # the sandbox's `teams` fixture adds an instance group of these


def tenant_base(suffix: str) -> list:
    return [Attr("contract", "hyperpod_connection_contract.tenants.governance"),
            Attr("team", q(f"bi{suffix}")),
            Block("quota", [Attr("instance_type", q(TENANT_INSTANCE_TYPE)), Attr("count", "1")]),
            Block("sharing", [Attr("strategy", q("Lend"))]),
            Attr("priority_class", q("research")),
            Attr("scheduling_policy", "hyperpod_scheduling_policy.capacity.governance"),
            Attr("viewer_groups", hlist([q(f"bi{suffix}-viewers")])),
            Attr("operator_groups", hlist([q(f"bi{suffix}-operators")])),
            Block("workload", [Attr("service_account", q(f"bi{suffix}-jobs")),
                               Attr("disable_session_tags", "true")])]  # so a session policy may be set (WKL-9)


def binding_base(suffix: str) -> list:
    return [Attr("contract", "hyperpod_connection_contract.research.governance"),
            Attr("project_id", q(FX.project("research").id)), Attr("cluster_name", q(CLUSTER)),
            Attr("project_role_arn", q(FX.project_role_arn("research"))),
            Attr("connection_name", q(f"bad-input-{suffix}")),
            Attr("description", q("research on the shared capacity")),
            Attr("tenants", "[hyperpod_tenant.research.governance]"),
            Block("member", [Attr("name", q(f"bi{suffix}-leads")), Attr("designation", q("PROJECT_OWNER"))])]


def contract_resource(label: str, body: list) -> str:
    out: list[str] = []
    render(body, 1, out, {}, ())
    return f'resource "hyperpod_connection_contract" "{label}" {{\n' + "\n".join(out) + "\n}\n"


SCHEDULING_SHARED = f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = "{CLUSTER}"
  priority_class {{
    name   = "research"
    weight = 10
  }}
}}
"""

RESEARCH_TENANT = f"""
resource "hyperpod_tenant" "research" {{
  contract = hyperpod_connection_contract.research.governance
  team     = "research"
  quota {{
    instance_type = "{FX.clusters.eks.instance_groups.inference.instance_type}"
    count         = 1
  }}
  viewer_groups   = ["research-task-viewers"]
  operator_groups = ["research-task-operators"]
  workload {{
    service_account = "research-jobs"
  }}
}}
"""

GRANT_SHARED = f"""
resource "hyperpod_domain_unit_policy_grant" "org" {{
  domain_id           = "{FX.datazone.domain_id}"
  domain_unit_id      = "{FX.datazone.domain_unit_id}"
  project_profile_ids = ["{FX.datazone.project_profile_id}"]
  principal {{
    group_id = "bad-input-org"
  }}
}}
"""


def specs(case_count_hint: int = 400, teams: dict | None = None) -> dict[str, ResourceSpec]:
    tenant_namespaces = [f"hyperpod-ns-bi{i:03d}" for i in range(case_count_hint)]
    return {
        "hyperpod_connection_contract": ResourceSpec(
            "hyperpod_connection_contract", lambda s: contract_body(f"bad-input-{s}"), shared=GRANT_SHARED),
        "hyperpod_domain_unit_policy_grant": ResourceSpec("hyperpod_domain_unit_policy_grant", grant_base),
        # One scheduler configuration per cluster: two EKS clusters, so two cases at a time.
        "hyperpod_scheduling_policy": ResourceSpec(
            "hyperpod_scheduling_policy", scheduling_base, exclusive=lambda case: case.slot),
        # One restriction per project role's access entry on a cluster: two projects, two cases at a time.
        "hyperpod_task_view_restriction": ResourceSpec(
            "hyperpod_task_view_restriction", restriction_base, shared=restriction_contracts(teams or {}),
            exclusive=lambda case: case.slot, slots=RESTRICTION_SLOTS, teams=RESTRICTION_TEAMS),
        "hyperpod_tenant": ResourceSpec(
            "hyperpod_tenant", tenant_base,
            shared=contract_resource("tenants", contract_body("bad-input-tenants", namespaces=tenant_namespaces))
            + SCHEDULING_SHARED, capacity=case_count_hint),
        "hyperpod_unified_studio_project_binding": ResourceSpec(
            "hyperpod_unified_studio_project_binding", binding_base,
            shared=contract_resource("research", contract_body(f"research-on-{CLUSTER}")) + RESEARCH_TENANT),
    }


# ---- cases -----------------------------------------------------------------------------------------------------------


@dataclass
class Case:
    resource: str
    label: str
    path: tuple  # attribute path, e.g. ("sharing", "borrow_limit")
    kind: str
    value: str  # the HCL written (for reports)
    body: list
    unknown: bool = False
    keyword: str = "resource"  # or "data", "output" (a function call's value)
    slot: int = 0  # for exclusive resources: which of the independent AWS objects it uses
    filename: str = ""  # set when rendered
    lines: tuple = (0, 0)  # set when rendered: the target's first and last line in the batch file
    # A nulled attribute is the same as an absent one, which Terraform shows at its enclosing block's first line: a
    # diagnostic there counts too (set when rendered, for kind "null" only).
    parent_line: int = 0
    block_lines: tuple = (0, 0)  # the whole resource block
    verdict_lines: tuple = (0, 0)  # where the rule reading a nulled reference reports instead (VERDICT_MOVES)

    @property
    def address(self) -> str:
        if self.keyword == "output":
            return f"output.{self.label}"
        prefix = "data." if self.keyword == "data" else ""
        return f"{prefix}{self.resource}.{self.label}"

    @property
    def path_text(self) -> str:
        return ".".join(self.path) or "(resource)"

    @property
    def must_be_invalid(self) -> bool:
        """Whether the case nulls a fact a handoff object cannot be read without (UNREADABLE_WHEN_NULL): it must fail
        the plan with an error, not be refused."""
        if len(self.path) != 1 or not (self.kind.startswith("field-") and self.kind.endswith("-null")):
            return False
        fact = self.kind.removeprefix("field-").removesuffix("-null")
        return fact in UNREADABLE_WHEN_NULL.get((self.resource, self.path[0]), ())

    @property
    def judged_again_at_apply(self) -> bool:
        """Whether the case's refusal rests on a live object the batch's apply may create first
        (JUDGED_AGAIN_AT_APPLY)."""
        return (self.resource, self.path) in JUDGED_AGAIN_AT_APPLY and self.kind == "null"

    def describe(self) -> str:
        value = self.value if len(self.value) <= 80 else self.value[:60] + f"... ({len(self.value)} chars)"
        return f"{self.address} {self.path_text} [{self.kind}] = {value}"


def string_kinds(base: str | None) -> list[tuple[str, str]]:
    good = json.loads(base) if base and base.startswith('"') else "value"
    return [("empty", q("")), ("oversize", OVERSIZE), ("control-u0001", q(good + "\u0001")),
            ("newline", q(good + "\nx")), ("tab", q(good + "\tx")), ("non-ascii", q(good + "-é✓🚀")),
            ("spaces", q(f" {good} "))]


def number_kinds() -> list[tuple[str, str]]:
    return [("fractional", "1.5"), ("huge", "1e30"), ("negative", "-1"), ("zero", "0")]


def first_element(expr: str | None) -> str:
    if expr and expr.startswith("[") and expr.endswith("]") and len(expr) > 2:
        inner = expr[1:-1]
        depth, cur = 0, ""
        for ch in inner:  # split at the first top-level comma
            if ch in "[{(":
                depth += 1
            elif ch in "]})":
                depth -= 1
            if ch == "," and depth == 0:
                break
            cur += ch
        return cur.strip()
    return q("value")


def collection_kinds(type_, base: str | None) -> list[tuple[str, str]]:
    outer, inner = type_[0], type_[1]
    element = first_element(base)
    kinds = []
    if outer in ("list", "set"):
        kinds += [("empty", "[]"), ("null-element", "[null]")]
        if base and base.startswith("["):
            kinds.append(("duplicates", f"[{element}, {element}]"))
        if inner == "string":
            good = json.loads(element) if element.startswith('"') else "value"
            kinds += [("element-empty", '[""]'), ("element-control", f"[{q(good + chr(1))}]"),
                      ("element-oversize", f"[{OVERSIZE}]"), ("element-non-ascii", f"[{q(good + 'é🚀')}]")]
    elif outer == "map":
        kinds += [("empty", "{}"), ("null-value", '{ "k" = null }'), ("key-empty", '{ "" = "v" }'),
                  ("key-control", '{ "k\\u0001" = "v" }'), ("key-aws-prefix", '{ "aws:k" = "v" }'),
                  ("value-oversize", '{ "k" = ' + OVERSIZE + " }"),
                  ("key-non-ascii", '{ "ké🚀" = "v" }'), ("value-control", '{ "k" = "v\\u0001" }')]
    return kinds


def object_kinds(type_, base: str | None) -> list[tuple[str, str]]:
    if not base:
        return []
    kinds = [("null", "null")]
    if type_[0] == "object":
        for name in sorted(type_[1]):
            kinds.append((f"field-{name}-null", f"merge({base}, {{ {name} = null }})"))
    return kinds


def attribute_kinds(name: str, attribute: dict, base: str | None, required: bool,
                    nested: bool = False) -> list[tuple[str, str]]:
    type_ = attribute.get("type")
    kinds: list[tuple[str, str]] = []
    if type_ == "string":
        kinds = string_kinds(base)
    elif type_ == "number":
        kinds = number_kinds()
    elif type_ == "bool":
        kinds = []
    elif isinstance(type_, list) and type_[0] in ("list", "set", "map"):
        if isinstance(type_[1], list) and type_[1][0] == "object":
            kinds = [("empty", "[]"), ("null-element", "[null]")]
            if base and base.startswith("["):
                kinds.append(("duplicates", f"[{first_element(base)}, {first_element(base)}]"))
        else:
            kinds = collection_kinds(type_, base)
    elif isinstance(type_, list) and type_[0] == "object":
        kinds = object_kinds(type_, base)
    if required or (nested and base is not None):
        kinds.append(("null", "null"))
    if base is not None:
        kinds.append(("unknown", f"{UNKNOWN_GUARD} ? {BASE} : {BASE}"))
    return kinds


def find(body: list, name: str, kind=None):
    for item in body:
        if item.name == name and (kind is None or isinstance(item, kind)):
            return item
    return None


def copy_body(body: list) -> list:
    return [Attr(i.name, i.expr) if isinstance(i, Attr) else Block(i.name, copy_body(i.body), i.dynamic_unknown)
            for i in body]


def locate(body: list, path: tuple, samples: dict, create: bool = True):
    """The body holding path[-1] (blocks created from samples when missing), or None."""
    for step in path[:-1]:
        block = find(body, step, Block)
        if block is None:
            if not create or not isinstance(samples.get(step), list):
                return None
            block = Block(step, copy_body(samples[step]))
            body.append(block)
        body = block.body
    return body


def set_attr(body: list, name: str, expr: str) -> None:
    item = find(body, name, Attr)
    if item is None:
        body.append(Attr(name, expr))
    else:
        item.expr = expr


def generate(schema: dict, only: tuple = (), teams: dict | None = None) -> list[Case]:
    """Every case for every resource type (or those in `only`), in a stable order."""
    provider = schema["provider_schemas"][PROVIDER_KEY]
    cases: list[Case] = []
    for rtype, spec in specs(teams=teams).items():
        if only and rtype not in only:
            continue
        block = provider["resource_schemas"][rtype]["block"]
        counter = iter(range(10_000))

        def new_case(path, kind, value, mutate, unknown=False, rtype=rtype, spec=spec, counter=counter):
            index = next(counter)
            body = spec.base(f"{index:03d}")
            mutate(body)
            cases.append(Case(rtype, f"c{index:03d}", path, kind, value, body, unknown=unknown,
                              slot=slot(f"{index:03d}", spec.slots)))

        new_case((), "baseline", "(base configuration)", lambda body: None)
        walk_block(block, (), spec, new_case)
    return cases


def walk_block(block: dict, prefix: tuple, spec: ResourceSpec, new_case) -> None:
    samples = SAMPLES.get(spec.type, {})
    probe = spec.base("000")
    for name, attribute in sorted(block.get("attributes", {}).items()):
        if attribute.get("computed") and not attribute.get("optional") and not attribute.get("required"):
            continue
        path = prefix + (name,)
        if path in spec.skip:
            continue
        holder = locate(copy_body(probe), path, samples)
        existing = find(holder, name, Attr) if holder is not None else None
        base = existing.expr if existing is not None else samples.get(name) if isinstance(samples.get(name),
                                                                                             str) else None
        for kind, expr in attribute_kinds(name, attribute, base, bool(attribute.get("required")),
                                          nested=bool(prefix)):
            def mutate(body, path=path, expr=expr, fallback=base):
                # BASE stands for the case's own good value (unique names stay unique per case).
                target = locate(body, path, samples)
                own = find(target, path[-1], Attr)
                set_attr(target, path[-1], expr.replace(BASE, own.expr if own is not None else fallback or ""))
            new_case(path, kind, expr.replace(BASE, base or ""), mutate, unknown=kind == "unknown")
    for name, nested in sorted(block.get("block_types", {}).items()):
        path = prefix + (name,)
        if path in spec.skip:
            continue
        holder = locate(copy_body(probe), path, samples)
        present = holder is not None and find(holder, name, Block) is not None
        sample = samples.get(name)
        if not present and not isinstance(sample, list):
            if nested["block"].get("attributes") and not any(a.get("required") for a in
                                                             nested["block"]["attributes"].values()):
                sample = []
        if not present and sample is None:
            # Without a sample the nested block cannot be written validly; its attributes are still probed below
            # only if the base has it.
            continue
        if not present:
            samples = {**samples, name: sample}
            SAMPLES.setdefault(spec.type, {})[name] = sample
        # Block-level kinds: none (when optional), one too many (max_items), unknown (dynamic block).
        min_items, max_items = nested.get("min_items", 0), nested.get("max_items", 0)
        if present and not min_items:
            def drop(body, path=path, samples=samples):
                target = locate(body, path, samples)
                target[:] = [i for i in target if not (isinstance(i, Block) and i.name == path[-1])]
            new_case(path, "block-absent", "(no block)", drop)
        if nested["nesting_mode"] in ("list", "set"):
            def duplicate(body, path=path, count=(max_items or 1) + (0 if max_items else 1), samples=samples):
                target = locate(body, path, samples)
                existing = [i for i in target if isinstance(i, Block) and i.name == path[-1]]
                model = existing[0] if existing else Block(path[-1], copy_body(samples.get(path[-1], [])))
                target[:] = [i for i in target if not (isinstance(i, Block) and i.name == path[-1])]
                target.extend(Block(path[-1], copy_body(model.body)) for _ in range(count))
            kind = f"blocks-{max_items + 1}" if max_items else "blocks-duplicate"
            new_case(path, kind, "(repeated block)", duplicate)

        def dynamic(body, path=path, samples=samples):
            target = locate(body, path, samples)
            for item in target:
                if isinstance(item, Block) and item.name == path[-1]:
                    item.dynamic_unknown = True
                    return
        new_case(path, "unknown-block", "(dynamic block, for_each unknown)", dynamic, unknown=True)
        walk_block(nested["block"], path, spec, new_case)


# ---- batches: the configuration files ----------------------------------------------------------------------------

PROVIDER_HCL = f"""terraform {{
  required_providers {{
    hyperpod = {{ source = "hyperpod-governance/hyperpod" }}
  }}
}}

provider "hyperpod" {{
  region = "{REGION}"
}}

resource "terraform_data" "unknown" {{
  input = "known only after apply"
}}
"""


# Facts of a handoff object without which no dependent can read it (a contract's governance: its name, lifecycle state,
# cluster and, on EKS, namespaces; a scheduling policy's priority classes, for WKL-4; for a task view restriction, which
# sets no project role of its own here, the contract's project role). A `merge` nulling one is configuration the
# provider cannot use, whatever the account holds: the plan fails with an error at the reference, never a refusal.
# Nulling any other fact leaves a readable object that the rules judge (a refusal, if one breaks).
CONTRACT_FACTS = ("cluster_account_id", "cluster_name", "cluster_region", "contract", "eks_namespaces",
                  "lifecycle_state", "orchestrator")
UNREADABLE_WHEN_NULL: dict[tuple[str, str], tuple[str, ...]] = {
    ("hyperpod_tenant", "contract"): CONTRACT_FACTS,
    ("hyperpod_tenant", "scheduling_policy"): ("priority_classes",),
    ("hyperpod_unified_studio_project_binding", "contract"): CONTRACT_FACTS,
    ("hyperpod_task_view_restriction", "contract"): (*CONTRACT_FACTS, "project_role_arn"),
}


# An optional reference set to null is the reference left out: the rule that read it then judges live state and
# reports at the attribute it judges, not at the reference (a tenant without `scheduling_policy`: WKL-4 at
# `priority_class`, the class the live policy lacks).
VERDICT_MOVES = {("hyperpod_tenant", ("scheduling_policy",)): ("priority_class",)}
# Such a verdict rests on a live object the batch's own apply may create first (the shared scheduling policy, which
# the case no longer references, so Terraform orders nothing between them): apply judges the change again against
# what then exists, and either refuses it as the plan warned or, the object being there by then, writes it and must
# converge (docs/design/where-rules-run.md, "Live refusals").
JUDGED_AGAIN_AT_APPLY = set(VERDICT_MOVES)


def render_batch(cases: list[Case], shared: str) -> dict[str, str]:
    """The files of a working dir holding these cases: main.tf (provider, terraform_data, what the cases share) and
    one `<label>.tf` per case, so Terraform's diagnostics name the case's file (it re-reads a diagnostic's file to show
    its context: small files keep that cheap). Sets each case's `filename`, `lines` and `block_lines`."""
    files = {"main.tf": PROVIDER_HCL + shared}
    for case in cases:
        case.filename = f"{case.label}.tf"
        if case.keyword == "output":
            out = [f'output "{case.label}" {{']
        else:
            out = [f'{case.keyword} "{case.resource}" "{case.label}" {{']
        marks: dict = {}
        render(case.body, 1, out, marks, case.path)
        parent: dict = {}
        if len(case.path) > 1:
            render(case.body, 1, [""], parent, case.path[:-1])
        out.append("}")
        case.block_lines = (1, len(out))
        case.lines = marks.get(case.path, case.block_lines)
        if case.kind == "null":
            case.parent_line = parent[case.path[:-1]][0] if case.path[:-1] in parent else 1
            moved = VERDICT_MOVES.get((case.resource, case.path))
            if moved:
                at: dict = {}
                render(case.body, 1, [""], at, moved)
                case.verdict_lines = at.get(moved, (0, 0))
        files[case.filename] = "\n".join(out) + "\n"
    return files


def generate_misc(schema: dict) -> list[Case]:
    """The data source's attributes and each function's arguments: plan-time cases (unknown ones are read or called
    at apply)."""
    provider = schema["provider_schemas"][PROVIDER_KEY]
    cases: list[Case] = []
    counter = iter(range(10_000))
    for dtype, data_source in sorted(provider.get("data_source_schemas", {}).items()):
        base = {"name": q(CLUSTER)}
        cases.append(Case(dtype, f"d{next(counter):03d}", (), "baseline", "(base)",
                          [Attr(n, v) for n, v in base.items()], keyword="data"))
        for name, attribute in sorted(data_source["block"].get("attributes", {}).items()):
            if not (attribute.get("required") or attribute.get("optional")):
                continue
            for kind, expr in attribute_kinds(name, attribute, base.get(name), bool(attribute.get("required"))):
                body = [Attr(n, expr.replace(BASE, v) if n == name else v) for n, v in base.items()]
                cases.append(Case(dtype, f"d{next(counter):03d}", (name,), kind, expr, body, unknown=kind == "unknown",
                                  keyword="data"))
    good_args = {"team_namespace": [q("research")],
                 "next_review_date": [q("2026-11-20"), "90"],
                 "review_status": [q("2026-11-20"), "90", q("2026-12-01T00:00:00Z")]}
    for fname, function in sorted(provider.get("functions", {}).items()):
        args = good_args.get(fname)
        if args is None:
            continue
        for position, parameter in enumerate(function.get("parameters", [])):
            kinds = attribute_kinds(parameter["name"], {"type": parameter["type"]}, args[position], True)
            for kind, expr in kinds:
                call_args = [expr.replace(BASE, a) if i == position else a for i, a in enumerate(args)]
                call = f"provider::hyperpod::{fname}({', '.join(call_args)})"
                cases.append(Case(f"function.{fname}", f"f{next(counter):03d}", ("value",),
                                  f"{parameter['name']}:{kind}", expr, [Attr("value", call)],
                                  unknown=kind == "unknown", keyword="output"))
    return cases
