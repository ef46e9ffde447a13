"""DataZone (SageMaker Unified Studio) in the sandbox: a new moto service, since moto has none.

`install()` registers it with moto (moto_adapter.register_service: `sys.modules["moto.datazone"]` + a host pattern
appended in place to moto's dispatcher).
Requests are parsed and responses/errors serialised by moto from the botocore `datazone` model
(rest-json: status codes 201/202/204, ResourceNotFoundException 404, ConflictException 409,
ValidationException 400); this file holds the state and AWS's business rules:

* domains (each with a root domain unit and a managed "Tooling" environment blueprint), domain units,
  project profiles, projects (`domainUnitId`, `projectStatus` ACTIVE), environments;
* a project created from a profile gets one environment per ON_CREATE environment configuration; a
  "Tooling" environment carries the project user role as provisioned resource `userRoleArn`
  (created in moto's IAM), which is how Studio tooling finds the project role;
* connections: HYPERPOD resolves `clusterName` against moto's own SageMaker clusters (same process;
  account/region from `awsLocation`, else the environment), IAM and S3 are kept as given;
* user profiles (IAM and IAM Identity Center users) and group profiles (Identity Center groups), seeded:
  GetUserProfile / GetGroupProfile / SearchUserProfiles / SearchGroupProfiles;
* project memberships (users and groups with designations) and policy grants on domain units. Their user and group
  identifiers are resolved to the profile ID, which is what ListProjectMemberships and ListPolicyGrants return; an
  identifier that names no profile is a ResourceNotFoundException, a second membership of the same profile a
  ConflictException (whatever its designation). The stricter reading of what AWS accepts: a group only by its
  profile ID, a user by its profile ID or, for an IAM user profile, its IAM ARN; a name is found with Search*.

State lives in the backend's `__dict__`, which moto's reset wipes; the seed is `seed_data/datazone.json`.
"""
import base64
import copy
import functools
import json
import re
import secrets
import string
import sys
import threading
import uuid
from typing import Any
from urllib.parse import unquote

from .moto_adapter import (
    ActionResult,
    BackendDict,
    BaseBackend,
    BaseResponse,
    EmptyResult,
    ServiceException,
    get_service_model,
    iam_backend,
    register_service,
    sagemaker_backend,
    utcnow,
)

_lock = threading.RLock()  # moto's server is threaded; Terraform writes in parallel
_LOWER = string.ascii_lowercase + string.digits
_GRANT = string.ascii_letters + string.digits
TOOLING = "Tooling"
SAGEMAKER_PROVIDER = "Amazon SageMaker"
# Policy types whose grants live on another entity type than a domain unit.
_NOT_ON_DOMAIN_UNITS = {"CREATE_ENVIRONMENT_PROFILE", "DELEGATE_CREATE_ENVIRONMENT_PROFILE", "CREATE_ENVIRONMENT",
                        "CREATE_ENVIRONMENT_FROM_BLUEPRINT", "USE_ASSET_TYPE"}
# DataZone's UserProfileId / GroupProfileId: a UUID, optionally behind a 10-hex-digit identity store prefix.
PROFILE_ID = re.compile(r"([0-9a-f]{10}-)?[A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{12}")
# SearchUserProfiles userType -> the profile types it finds; SearchGroupProfiles groupType -> role-backed or not.
_USER_SEARCH = {"SSO_USER": {"SSO"}, "DATAZONE_SSO_USER": {"SSO"}, "DATAZONE_IAM_USER": {"IAM"},
                "DATAZONE_USER": {"SSO", "IAM"}}
_GROUP_SEARCH = {"SSO_GROUP": False, "DATAZONE_SSO_GROUP": False, "IAM_ROLE_SESSION_GROUP": True}
# Input props member -> ConnectionType for the connection kinds the sandbox keeps.
_CONNECTION_TYPES = {"hyperPodProperties": "HYPERPOD", "iamProperties": "IAM", "s3Properties": "S3"}


class ResourceNotFoundException(ServiceException):
    code = "ResourceNotFoundException"


class ConflictException(ServiceException):
    code = "ConflictException"


class ValidationException(ServiceException):
    code = "ValidationException"


def new_id(n: int = 14) -> str:
    """DataZone ids are 14 lowercase alphanumerics (domains add `dzd_`)."""
    return "".join(secrets.choice(_LOWER) for _ in range(n))


def derived_profile_id(domain_id: str, kind: str, name: str) -> str:
    """A profile's ID, derived from the domain and what it profiles, so seeded IDs survive resets and re-seeding."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"datazone:{domain_id}:{kind}:{name}"))


def _camel(policy_type: str) -> str:
    """CREATE_PROJECT_FROM_PROJECT_PROFILE -> createProjectFromProjectProfile (the PolicyGrantDetail member)."""
    first, *rest = policy_type.lower().split("_")
    return first + "".join(w.capitalize() for w in rest)


def _plain(value):
    """Parsed params as plain dicts/lists, without members the parser left empty."""
    if hasattr(value, "original_dict"):
        value = value.original_dict()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _required(p: dict, *names: str) -> None:
    """Required members the model validation would reject, in AWS's words (for when it is off)."""
    for name in names:
        if p.get(name) in (None, {}):
            raise ValidationException(f"1 validation error detected: Value null at '{name}' "
                                      "failed to satisfy constraint: Member must not be null")


def _one_member(p: dict, name: str) -> tuple[str, Any]:
    """The single member of a union parameter."""
    union = p.get(name) or {}
    if len(union) != 1:
        raise ValidationException(f"Exactly one member of '{name}' must be set, got {sorted(union) or 'none'}")
    return next(iter(union.items()))


def _page(items: list, p: dict) -> tuple[list, str | None]:
    start = 0
    if p.get("nextToken"):
        try:
            start = int(base64.urlsafe_b64decode(p["nextToken"].encode()).decode())
        except ValueError:
            raise ValidationException(f"Invalid nextToken: {p['nextToken']}") from None
    end = start + (p.get("maxResults") or 50)
    token = base64.urlsafe_b64encode(str(end).encode()).decode() if end < len(items) else None
    return items[start:end], token


def _listing(key: str, items: list, p: dict) -> dict:
    page, token = _page(items, p)
    out: dict[str, Any] = {key: page}
    if token:
        out["nextToken"] = token
    return out


def _sort_by_name(items: list, p: dict, name=lambda x: x["name"]) -> list:
    if p.get("sortBy") == "NAME" or p.get("sortOrder"):
        return sorted(items, key=name, reverse=p.get("sortOrder") == "DESCENDING")
    return items


class Domain:
    """One domain and everything in it (plain class: moto's BaseModel metaclass wants a moto.* module)."""

    def __init__(self, record: dict):
        self.record = record
        self.units: dict[str, dict] = {}
        self.blueprints: dict[str, dict] = {}
        self.profiles: dict[str, dict] = {}
        self.projects: dict[str, dict] = {}
        self.environments: dict[str, dict] = {}
        self.connections: dict[str, dict] = {}
        # CreateConnection clientToken -> (request without the token, response). AWS documents the token as
        # ensuring idempotency without saying for how long or what a reuse with other parameters answers; the
        # stricter reading: a token is remembered for good, answers with its first response (even once that
        # connection is deleted), and with other parameters is a ConflictException.
        self.client_tokens: dict[str, tuple[dict, dict]] = {}
        self.memberships: dict[str, list] = {}  # project id -> members (profile IDs)
        self.user_profiles: dict[str, dict] = {}  # profile id -> GetUserProfile output
        self.group_profiles: dict[str, dict] = {}  # profile id -> GetGroupProfile output
        self.grants: dict[tuple, list] = {}  # (entityType, entityIdentifier) -> grants
        self.grant_tokens: dict[str, tuple] = {}  # AddPolicyGrant clientToken -> (request, grantId)

    @property
    def id(self) -> str:
        return self.record["id"]

    def unit(self, unit_id: str) -> dict:
        if unit_id not in self.units:
            raise ResourceNotFoundException(f"Domain unit {unit_id} not found in domain {self.id}")
        return self.units[unit_id]

    def project(self, project_id: str) -> dict:
        if project_id not in self.projects:
            raise ResourceNotFoundException(f"Project {project_id} not found in domain {self.id}")
        return self.projects[project_id]

    def profile(self, profile_id: str) -> dict:
        if profile_id not in self.profiles:
            raise ResourceNotFoundException(f"Project profile {profile_id} not found in domain {self.id}")
        return self.profiles[profile_id]

    def blueprint(self, blueprint_id: str) -> dict:
        if blueprint_id not in self.blueprints:
            raise ResourceNotFoundException(f"Environment blueprint {blueprint_id} not found in domain {self.id}")
        return self.blueprints[blueprint_id]

    def environment(self, environment_id: str) -> dict:
        if environment_id not in self.environments:
            raise ResourceNotFoundException(f"Environment {environment_id} not found in domain {self.id}")
        return self.environments[environment_id]

    def connection(self, connection_id: str) -> dict:
        if connection_id not in self.connections:
            raise ResourceNotFoundException(f"Connection {connection_id} not found in domain {self.id}")
        return self.connections[connection_id]

    def user_profile(self, identifier: str) -> dict:
        """The user profile a `userIdentifier` names: its profile ID, or the IAM ARN of an IAM user profile."""
        if identifier in self.user_profiles:
            return self.user_profiles[identifier]
        for profile in self.user_profiles.values():
            if profile["type"] == "IAM" and profile["details"]["iam"]["arn"] == identifier:
                return profile
        raise ResourceNotFoundException(f"User profile {identifier} not found in domain {self.id}")

    def group_profile(self, identifier: str) -> dict:
        """The group profile a `groupIdentifier` names: its profile ID (a group name is found with
        SearchGroupProfiles; the stricter reading of what AWS resolves)."""
        if identifier in self.group_profiles:
            return self.group_profiles[identifier]
        raise ResourceNotFoundException(f"Group profile {identifier} not found in domain {self.id}")

    def resolve_principal(self, principal: dict) -> dict:
        """A policy grant principal with its user or group identifier replaced by the profile ID, as DataZone keeps
        and lists it; other principals as given."""
        if "user" in principal and "userIdentifier" in principal["user"]:
            return {"user": {"userIdentifier": self.user_profile(principal["user"]["userIdentifier"])["id"]}}
        if "group" in principal and "groupIdentifier" in principal["group"]:
            return {"group": {"groupIdentifier": self.group_profile(principal["group"]["groupIdentifier"])["id"]}}
        return principal

    def user_role(self, environment: dict | None) -> str | None:
        for resource in (environment or {}).get("provisionedResources", []):
            if resource.get("name") == "userRoleArn":
                return resource["value"]
        return None


class DataZoneBackend(BaseBackend):
    def __init__(self, region_name, account_id):
        super().__init__(region_name, account_id)
        self.domains: dict[str, Domain] = {}

    @property
    def _url_module(self):
        # moto derives "<package>.urls" from the module name; url_bases/url_paths live here instead.
        return sys.modules[__name__]

    def _domain(self, domain_id: str) -> Domain:
        if domain_id not in self.domains:
            raise ResourceNotFoundException(f"Domain {domain_id} not found")
        return self.domains[domain_id]

    def _caller(self) -> str:
        return self.account_id  # DataZone reports the caller's user profile; the sandbox has none

    # ---- domains ---------------------------------------------------------------------
    def create_domain(self, p, domain_id=None, root_unit_id=None, tooling_blueprint_id=None):
        _required(p, "name")
        if any(d.record["name"] == p["name"] for d in self.domains.values()):
            raise ConflictException(f"Domain with name {p['name']} already exists")
        domain_id = domain_id or f"dzd_{new_id()}"
        version = p.get("domainVersion", "V1")
        now = utcnow()
        record = {
            "id": domain_id, "name": p["name"], "description": p.get("description"),
            "singleSignOn": p.get("singleSignOn") or {"type": "DISABLED"},
            "domainExecutionRole": p.get("domainExecutionRole") or p.get("serviceRole") or
            f"arn:aws:iam::{self.account_id}:role/service-role/AmazonDataZoneDomainExecution",
            "serviceRole": p.get("serviceRole"), "kmsKeyIdentifier": p.get("kmsKeyIdentifier"),
            "arn": f"arn:aws:datazone:{self.region_name}:{self.account_id}:domain/{domain_id}",
            "status": "AVAILABLE", "domainVersion": version, "managedAccountId": self.account_id,
            "portalUrl": f"https://{domain_id}.{'sagemaker' if version == 'V2' else 'datazone'}"
                         f".{self.region_name}.on.aws",
            "tags": p.get("tags"), "createdAt": now, "lastUpdatedAt": now,
        }
        domain = Domain(record)
        root = self._new_unit(domain, p["name"], None, None, root_unit_id)
        record["rootDomainUnitId"] = root["id"]
        blueprint_id = tooling_blueprint_id or new_id()
        domain.blueprints[blueprint_id] = {
            "id": blueprint_id, "name": TOOLING, "provider": SAGEMAKER_PROVIDER, "blueprintCategory": "TOOLING",
            "description": "Project tooling: the project's user role, network and storage", "managed": True,
            "provisioningProperties": {"cloudFormation": {
                "templateUrl": f"https://datazone-blueprints-{self.region_name}.s3.amazonaws.com/tooling.yaml"}},
            "userParameters": [], "createdAt": now, "updatedAt": now}
        self.domains[domain_id] = domain
        return record

    def get_domain(self, p):
        return self._domain(p["identifier"]).record

    def list_domains(self, p):
        items = [d.record for d in self.domains.values() if p.get("status") in (None, d.record["status"])]
        return _listing("items", items, {**p, "maxResults": p.get("maxResults") or 25})

    def delete_domain(self, p):
        domain = self._domain(p["identifier"])
        if domain.projects and not p.get("skipDeletionCheck"):
            raise ConflictException(f"Domain {domain.id} still has {len(domain.projects)} project(s); "
                                    "delete them first or set skipDeletionCheck")
        for project_id in list(domain.projects):
            self.delete_project({"domainIdentifier": domain.id, "identifier": project_id})
        del self.domains[domain.id]
        return {"status": "DELETING"}

    # ---- domain units ----------------------------------------------------------------
    def _new_unit(self, domain, name, parent, description, unit_id=None):
        if parent and any(u["name"] == name and u.get("parentDomainUnitId") == parent["id"]
                          for u in domain.units.values()):
            raise ConflictException(f"Domain unit {name} already exists under {parent['id']}")
        now = utcnow()
        unit = {"id": unit_id or new_id(), "domainId": domain.id, "name": name, "description": description,
                "parentDomainUnitId": parent["id"] if parent else None,
                "ancestorDomainUnitIds": (parent["ancestorDomainUnitIds"] + [parent["id"]]) if parent else [],
                "owners": [], "createdAt": now, "lastUpdatedAt": now, "createdBy": self._caller(),
                "lastUpdatedBy": self._caller()}
        domain.units[unit["id"]] = unit
        return unit

    def create_domain_unit(self, p, unit_id=None):
        _required(p, "name", "parentDomainUnitIdentifier")
        domain = self._domain(p["domainIdentifier"])
        return self._new_unit(domain, p["name"], domain.unit(p["parentDomainUnitIdentifier"]),
                              p.get("description"), unit_id)

    def get_domain_unit(self, p):
        return self._domain(p["domainIdentifier"]).unit(p["identifier"])

    def list_domain_units_for_parent(self, p):
        _required(p, "parentDomainUnitIdentifier")
        domain = self._domain(p["domainIdentifier"])
        parent = domain.unit(p["parentDomainUnitIdentifier"])
        items = [u for u in domain.units.values() if u.get("parentDomainUnitId") == parent["id"]]
        return _listing("items", items, {**p, "maxResults": p.get("maxResults") or 25})

    def delete_domain_unit(self, p):
        domain = self._domain(p["domainIdentifier"])
        unit = domain.unit(p["identifier"])
        if unit["id"] == domain.record["rootDomainUnitId"]:
            raise ValidationException(f"The root domain unit {unit['id']} of domain {domain.id} cannot be deleted")
        if any(u.get("parentDomainUnitId") == unit["id"] for u in domain.units.values()):
            raise ConflictException(f"Domain unit {unit['id']} has child domain units")
        if any(pr["domainUnitId"] == unit["id"] for pr in domain.projects.values()):
            raise ConflictException(f"Domain unit {unit['id']} has projects")
        del domain.units[unit["id"]]
        domain.grants.pop(("DOMAIN_UNIT", unit["id"]), None)

    # ---- environment blueprints --------------------------------------------------------
    def list_environment_blueprints(self, p):
        domain = self._domain(p["domainIdentifier"])
        items = [b for b in domain.blueprints.values()
                 if p.get("managed") in (None, b["managed"]) and (not p.get("name") or p["name"] in b["name"])]
        return _listing("items", items, p)

    def get_environment_blueprint(self, p):
        return self._domain(p["domainIdentifier"]).blueprint(p["identifier"])

    # ---- project profiles --------------------------------------------------------------
    def create_project_profile(self, p, profile_id=None):
        _required(p, "name")
        domain = self._domain(p["domainIdentifier"])
        if any(pp["name"] == p["name"] for pp in domain.profiles.values()):
            raise ConflictException(f"Project profile {p['name']} already exists in domain {domain.id}")
        unit = domain.unit(p.get("domainUnitIdentifier") or domain.record["rootDomainUnitId"])
        configs = copy.deepcopy(p.get("environmentConfigurations") or [])
        for config in configs:
            domain.blueprint(config["environmentBlueprintId"])
            config.setdefault("id", new_id())
            config.setdefault("deploymentMode", "ON_CREATE")
        now = utcnow()
        given = {k: v for k, v in p.items() if k not in ("domainIdentifier", "domainUnitIdentifier", "clientToken")}
        profile = {**given,
                   "id": profile_id or new_id(), "domainId": domain.id, "domainUnitId": unit["id"],
                   "status": p.get("status", "ENABLED"), "environmentConfigurations": configs,
                   "createdBy": self._caller(), "createdAt": now, "lastUpdatedAt": now}
        domain.profiles[profile["id"]] = profile
        return profile

    def get_project_profile(self, p):
        return self._domain(p["domainIdentifier"]).profile(p["identifier"])

    def list_project_profiles(self, p):
        domain = self._domain(p["domainIdentifier"])
        items = [pp for pp in domain.profiles.values() if not p.get("name") or p["name"] in pp["name"]]
        return _listing("items", _sort_by_name(items, p), p)

    def delete_project_profile(self, p):
        domain = self._domain(p["domainIdentifier"])
        profile = domain.profile(p["identifier"])
        if any(pr.get("projectProfileId") == profile["id"] for pr in domain.projects.values()):
            raise ValidationException(f"Project profile {profile['id']} is used by projects")
        del domain.profiles[profile["id"]]

    # ---- projects ----------------------------------------------------------------------
    def create_project(self, p, project_id=None, deploy_environments=True):
        _required(p, "name")
        domain = self._domain(p["domainIdentifier"])
        if any(pr["name"] == p["name"] for pr in domain.projects.values()):
            raise ConflictException(f"Project with name {p['name']} already exists in domain {domain.id}")
        unit = domain.unit(p.get("domainUnitId") or domain.record["rootDomainUnitId"])
        profile = domain.profile(p["projectProfileId"]) if p.get("projectProfileId") else None
        if profile and profile["status"] != "ENABLED":
            raise ValidationException(f"Project profile {profile['id']} is {profile['status']}")
        assignments = p.get("membershipAssignments") or []
        members = [self._member(a["member"], a.get("designation"), a.get("userCreatedDesignationId"))
                   for a in assignments]
        now = utcnow()
        project = {
            "id": project_id or new_id(), "domainId": domain.id, "name": p["name"],
            "description": p.get("description"), "projectStatus": "ACTIVE", "domainUnitId": unit["id"],
            "projectProfileId": p.get("projectProfileId"), "projectCategory": p.get("projectCategory"),
            "glossaryTerms": p.get("glossaryTerms"), "userParameters": p.get("userParameters"),
            "resourceTags": [{"key": k, "value": v, "source": "PROJECT"}
                             for k, v in (p.get("resourceTags") or {}).items()] or None,
            "createdBy": self._caller(), "createdAt": now, "lastUpdatedAt": now, "updatedAt": now}
        domain.projects[project["id"]] = project
        domain.memberships[project["id"]] = members
        if profile and deploy_environments:
            for config in profile["environmentConfigurations"]:
                if config.get("deploymentMode") != "ON_DEMAND":
                    self._new_environment(domain, project, config["name"],
                                          domain.blueprint(config["environmentBlueprintId"]), config=config)
            project["environmentDeploymentDetails"] = {"overallDeploymentStatus": "SUCCESSFUL"}
        return project

    def get_project(self, p):
        return self._domain(p["domainIdentifier"]).project(p["identifier"])

    def list_projects(self, p):
        domain = self._domain(p["domainIdentifier"])
        wanted = set()
        # The filter names a profile as memberships do; one that names none matches no project.
        for kind, key, find in (("user", "userIdentifier", domain.user_profile),
                                ("group", "groupIdentifier", domain.group_profile)):
            if p.get(key):
                try:
                    wanted.add((kind, find(p[key])["id"]))
                except ResourceNotFoundException:
                    wanted.add((kind, None))
        items = [pr for pr in domain.projects.values()
                 if (not p.get("name") or p["name"] in pr["name"])
                 and p.get("projectCategory") in (None, pr.get("projectCategory"))
                 and (not wanted or wanted & {(m["kind"], m["id"]) for m in domain.memberships[pr["id"]]})]
        return _listing("items", items, p)

    def delete_project(self, p):
        domain = self._domain(p["domainIdentifier"])
        project = domain.project(p["identifier"])
        # The project's environments (and their user roles), connections and memberships go with it.
        for env in [e for e in domain.environments.values() if e["projectId"] == project["id"]]:
            self._delete_environment(domain, env)
        for cid in [c for c, conn in domain.connections.items() if conn.get("projectId") == project["id"]]:
            del domain.connections[cid]
        del domain.memberships[project["id"]]
        del domain.projects[project["id"]]

    # ---- environments ------------------------------------------------------------------
    def _new_environment(self, domain, project, name, blueprint, config=None, environment_id=None,
                         user_role_arn=None, account=None, region=None, description=None, extra_resources=()):
        env_id = environment_id or new_id()
        resources = []
        if blueprint["name"] == TOOLING:
            if user_role_arn is None:
                user_role_arn = self._create_user_role(f"datazone_usr_role_{project['id']}_{env_id}", project)
            resources.append({"provider": "IAM", "name": "userRoleArn", "value": user_role_arn, "type": "IAMRole"})
        resources.extend(copy.deepcopy(list(extra_resources)))
        now = utcnow()
        env = {"id": env_id, "domainId": domain.id, "projectId": project["id"], "name": name,
               "description": description, "provider": blueprint["provider"], "status": "ACTIVE",
               "awsAccountId": account or self.account_id, "awsAccountRegion": region or self.region_name,
               "environmentBlueprintId": blueprint["id"], "provisionedResources": resources,
               "environmentActions": [], "userParameters": [],
               "lastDeployment": {"deploymentId": new_id(), "deploymentType": "CREATE",
                                  "deploymentStatus": "SUCCESSFUL", "isDeploymentComplete": True},
               "createdBy": self._caller(), "createdAt": now, "updatedAt": now}
        if config:
            env.update(environmentConfigurationId=config["id"], environmentConfigurationName=config["name"])
        domain.environments[env_id] = env
        return env

    def _create_user_role(self, role_name, project):
        """The project user role a Tooling environment's stack creates (kept in moto's IAM)."""
        iam = iam_backend(self.account_id, self.partition)
        trust = {"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": {"Service": ["datazone.amazonaws.com", "sagemaker.amazonaws.com"]},
            "Action": ["sts:AssumeRole", "sts:TagSession", "sts:SetContext"]}]}
        role = iam.create_role(role_name=role_name, assume_role_policy_document=json.dumps(trust), path="/",
                               permissions_boundary=None, description=f"DataZone project {project['name']} user role",
                               tags=[{"Key": "AmazonDataZoneProject", "Value": project["id"]}],
                               max_session_duration=None)
        role.sandbox_datazone_owned = True
        return role.arn

    def _delete_environment(self, domain, env):
        iam = iam_backend(self.account_id, self.partition)
        role_arn = domain.user_role(env)
        for role in list(iam.roles.values()):
            if role.arn == role_arn and getattr(role, "sandbox_datazone_owned", False):
                del iam.roles[role.id]  # seeded roles (not created here) stay
        del domain.environments[env["id"]]

    def create_environment(self, p):
        _required(p, "name", "projectIdentifier")
        domain = self._domain(p["domainIdentifier"])
        project = domain.project(p["projectIdentifier"])
        if any(e["projectId"] == project["id"] and e["name"] == p["name"] for e in domain.environments.values()):
            raise ConflictException(f"Environment {p['name']} already exists in project {project['id']}")
        config = None
        if p.get("environmentConfigurationId"):
            profile = domain.profiles.get(project.get("projectProfileId") or "") or {}
            config = next((c for c in profile.get("environmentConfigurations", [])
                           if c["id"] == p["environmentConfigurationId"]), None)
            if config is None:
                raise ResourceNotFoundException(f"Environment configuration {p['environmentConfigurationId']} "
                                                f"not found in the profile of project {project['id']}")
            blueprint = domain.blueprint(config["environmentBlueprintId"])
        elif p.get("environmentBlueprintIdentifier"):
            blueprint = domain.blueprint(p["environmentBlueprintIdentifier"])
        elif p.get("environmentProfileIdentifier"):
            raise ResourceNotFoundException(f"Environment profile {p['environmentProfileIdentifier']} not found")
        else:
            raise ValidationException("One of environmentConfigurationId, environmentBlueprintIdentifier or "
                                      "environmentProfileIdentifier is required")
        return self._new_environment(domain, project, p["name"], blueprint, config=config,
                                     account=p.get("environmentAccountIdentifier"),
                                     region=p.get("environmentAccountRegion"), description=p.get("description"))

    def get_environment(self, p):
        return self._domain(p["domainIdentifier"]).environment(p["identifier"])

    def list_environments(self, p):
        _required(p, "projectIdentifier")
        domain = self._domain(p["domainIdentifier"])
        filters = {"projectId": p.get("projectIdentifier"),
                   "environmentBlueprintId": p.get("environmentBlueprintIdentifier"), "status": p.get("status"),
                   "provider": p.get("provider"), "name": p.get("name"), "awsAccountId": p.get("awsAccountId"),
                   "awsAccountRegion": p.get("awsAccountRegion")}
        items = [e for e in domain.environments.values()
                 if all(v is None or e.get(k) == v for k, v in filters.items())]
        if p.get("environmentProfileIdentifier"):
            items = []  # no environment profiles in the sandbox
        return _listing("items", items, p)

    # ---- connections -------------------------------------------------------------------
    def _hyperpod(self, props, account, region):
        """Resolve the HyperPod cluster in moto's own SageMaker backend."""
        name = props.get("clusterName")
        cluster = sagemaker_backend(account, region).clusters.get(name) if name else None
        if cluster is None:
            raise ResourceNotFoundException(f"HyperPod cluster {name} not found in account {account} region {region}")
        orchestrator = cluster.describe().get("Orchestrator") or {}
        return {"clusterName": name, "clusterArn": cluster.arn,
                "orchestrator": "EKS" if "Eks" in orchestrator else "SLURM"}

    def create_connection(self, p):
        _required(p, "name")
        domain = self._domain(p["domainIdentifier"])
        token = p.get("clientToken")
        request = {k: v for k, v in p.items() if k != "clientToken"}
        if token is not None and token in domain.client_tokens:
            first, response = domain.client_tokens[token]
            if first != request:
                raise ConflictException(f"Client token {token} was already used with different parameters")
            return copy.deepcopy(response)
        conn = self._create_connection(domain, p)
        if token is not None:
            domain.client_tokens[token] = (copy.deepcopy(request), copy.deepcopy(conn))
        return conn

    def _create_connection(self, domain, p):
        if any(c["name"] == p["name"] for c in domain.connections.values()):
            raise ConflictException(f"Connection with name {p['name']} already exists in domain {domain.id}")
        env = domain.environment(p["environmentIdentifier"]) if p.get("environmentIdentifier") else None
        project = domain.projects[env["projectId"]] if env else None
        scope = p.get("scope") or ("PROJECT" if env else "DOMAIN")
        if scope == "PROJECT" and env is None:
            raise ValidationException("environmentIdentifier is required for a connection with scope PROJECT")
        member, props = _one_member(p, "props")
        if member not in _CONNECTION_TYPES:
            raise NotImplementedError(f"connections with props.{member}")
        location = dict(p.get("awsLocation") or {})
        location.setdefault("awsAccountId", env["awsAccountId"] if env else self.account_id)
        location.setdefault("awsRegion", env["awsAccountRegion"] if env else self.region_name)
        if member == "hyperPodProperties":
            out = self._hyperpod(props, location["awsAccountId"], location["awsRegion"])
        elif member == "iamProperties":
            out = {"environmentId": env["id"] if env else None,
                   "glueLineageSyncEnabled": props.get("glueLineageSyncEnabled")}
        else:
            out = {**props, "status": "READY"}
        conn = {"connectionId": new_id(), "domainId": domain.id,
                "domainUnitId": project["domainUnitId"] if project else domain.record["rootDomainUnitId"],
                "environmentId": env["id"] if env else None, "projectId": project["id"] if project else None,
                "name": p["name"], "description": p.get("description"), "type": _CONNECTION_TYPES[member],
                "scope": scope, "configurations": p.get("configurations"), "props": {member: out},
                "physicalEndpoints": [{"awsLocation": location,
                                       "enableTrustedIdentityPropagation": p.get("enableTrustedIdentityPropagation")}]}
        domain.connections[conn["connectionId"]] = conn
        return conn

    def get_connection(self, p):
        domain = self._domain(p["domainIdentifier"])
        conn = domain.connection(p["identifier"])
        environment = domain.environments.get(conn.get("environmentId") or "")
        return {**conn, "environmentUserRole": domain.user_role(environment)}

    def update_connection(self, p):
        domain = self._domain(p["domainIdentifier"])
        conn = domain.connection(p["identifier"])
        if p.get("props"):
            member, patch = _one_member(p, "props")
            if member not in conn["props"]:
                raise ValidationException(f"props.{member} cannot be applied to a {conn['type']} connection")
            conn["props"][member].update(patch)
        if "description" in p:
            conn["description"] = p["description"]
        if "configurations" in p:
            conn["configurations"] = p["configurations"]
        if "awsLocation" in p:
            for endpoint in conn["physicalEndpoints"]:
                endpoint["awsLocation"].update(p["awsLocation"])
        return conn

    def delete_connection(self, p):
        domain = self._domain(p["domainIdentifier"])
        del domain.connections[domain.connection(p["identifier"])["connectionId"]]
        return {"status": "DELETING"}

    def list_connections(self, p):
        domain = self._domain(p["domainIdentifier"])
        filters = {"projectId": p.get("projectIdentifier"), "environmentId": p.get("environmentIdentifier"),
                   "type": p.get("type"), "scope": p.get("scope"), "name": p.get("name")}
        items = [c for c in domain.connections.values() if all(v is None or c.get(k) == v for k, v in filters.items())]
        return _listing("items", _sort_by_name(items, p), p)

    # ---- user and group profiles ----------------------------------------------------------
    def create_user_profile(self, p, profile_id=None):
        """An IAM user profile (`userIdentifier` an IAM ARN, userType IAM_ROLE / IAM_USER) or an Identity Center one
        (userType SSO_USER: the sandbox has no Identity Center, so the identifier is taken as the user name)."""
        _required(p, "userIdentifier")
        domain = self._domain(p["domainIdentifier"])
        identifier, user_type = p["userIdentifier"], p.get("userType")
        iam = user_type in ("IAM_USER", "IAM_ROLE") or (user_type is None and identifier.startswith("arn:aws:iam::"))
        if iam and not re.fullmatch(r"arn:aws:iam::\d{12}:(role|user)/.+", identifier):
            raise ValidationException(f"User identifier {identifier} is not an IAM user or role ARN")
        pid = profile_id or derived_profile_id(domain.id, "iam" if iam else "sso", identifier)
        if pid in domain.user_profiles:
            raise ConflictException(f"User profile for {identifier} already exists in domain {domain.id}")
        details = ({"iam": {"arn": identifier, "principalId": "AROA" + pid.replace("-", "")[:17].upper()}} if iam
                   else {"sso": {"username": identifier}})
        profile = {"domainId": domain.id, "id": pid, "type": "IAM" if iam else "SSO",
                   "status": "ACTIVATED" if iam else "ASSIGNED", "details": details}
        domain.user_profiles[pid] = profile
        return profile

    def get_user_profile(self, p):
        domain = self._domain(p["domainIdentifier"])
        profile = domain.user_profile(p["userIdentifier"])
        if p.get("type") and p["type"] != profile["type"]:
            raise ResourceNotFoundException(f"User profile {p['userIdentifier']} of type {p['type']} not found "
                                            f"in domain {domain.id}")
        return profile

    def search_user_profiles(self, p):
        _required(p, "userType")
        domain = self._domain(p["domainIdentifier"])
        if p["userType"] not in _USER_SEARCH:
            raise ValidationException(f"Invalid userType {p['userType']}")
        text = (p.get("searchText") or "").lower()

        def words(profile):
            details = profile["details"].get("sso") or profile["details"].get("iam") or {}
            return [str(v).lower() for v in details.values()]
        items = [u for u in domain.user_profiles.values() if u["type"] in _USER_SEARCH[p["userType"]]
                 and (not text or any(text in w for w in words(u)))]
        return _listing("items", items, p)

    def create_group_profile(self, p, profile_id=None):
        """A group profile for an Identity Center group (the sandbox has no Identity Center: the identifier is the
        group's name) or, with `rolePrincipalArn`, an IAM-role-backed one."""
        _required(p, "groupIdentifier")
        domain = self._domain(p["domainIdentifier"])
        name = p["groupIdentifier"]
        pid = profile_id or derived_profile_id(domain.id, "group", name)
        if pid in domain.group_profiles or any(g["groupName"] == name for g in domain.group_profiles.values()):
            raise ConflictException(f"Group profile for {name} already exists in domain {domain.id}")
        profile = {"domainId": domain.id, "id": pid, "status": "ASSIGNED", "groupName": name}
        if p.get("rolePrincipalArn"):
            profile.update(rolePrincipalArn=p["rolePrincipalArn"],
                           rolePrincipalId="AROA" + pid.replace("-", "")[:17].upper())
        domain.group_profiles[pid] = profile
        return profile

    def get_group_profile(self, p):
        return self._domain(p["domainIdentifier"]).group_profile(p["groupIdentifier"])

    def search_group_profiles(self, p):
        _required(p, "groupType")
        domain = self._domain(p["domainIdentifier"])
        if p["groupType"] not in _GROUP_SEARCH:
            raise ValidationException(f"Invalid groupType {p['groupType']}")
        text = (p.get("searchText") or "").lower()
        items = [g for g in domain.group_profiles.values()
                 if bool(g.get("rolePrincipalArn")) == _GROUP_SEARCH[p["groupType"]] and text in g["groupName"].lower()]
        return _listing("items", items, p)

    # ---- project memberships -----------------------------------------------------------
    @staticmethod
    def _member_profile(domain, member) -> tuple[str, str]:
        """("user" | "group", profile ID) of a `member` union; an identifier that names no profile is
        ResourceNotFoundException."""
        kind, identifier = _one_member({"member": member}, "member")
        if kind == "userIdentifier":
            return "user", domain.user_profile(identifier)["id"]
        return "group", domain.group_profile(identifier)["id"]

    @classmethod
    def _member(cls, domain, member, designation, user_created_designation_id=None):
        _required({"designation": designation}, "designation")
        if designation == "USER_CREATED_DESIGNATION" and not user_created_designation_id:
            raise ValidationException("userCreatedDesignationId is required for designation USER_CREATED_DESIGNATION")
        kind, pid = cls._member_profile(domain, member)
        return {"kind": kind, "id": pid, "designation": designation,
                "userCreatedDesignationId": user_created_designation_id}

    def create_project_membership(self, p):
        _required(p, "member", "designation")
        domain = self._domain(p["domainIdentifier"])
        project = domain.project(p["projectIdentifier"])
        new = self._member(domain, p["member"], p["designation"], p.get("userCreatedDesignationId"))
        members = domain.memberships[project["id"]]
        for existing in members:
            # AWS's answer to a second membership is not documented (the model lists no ConflictException); the
            # stricter reading: refused, with or without another designation (a change is a delete and a create).
            if (existing["kind"], existing["id"]) == (new["kind"], new["id"]):
                raise ConflictException(f"{new['kind'].capitalize()} {new['id']} is already a member of project "
                                        f"{project['id']} as {existing['designation']}")
        members.append(new)
        return {}

    def list_project_memberships(self, p):
        domain = self._domain(p["domainIdentifier"])
        project = domain.project(p["projectIdentifier"])
        members = _sort_by_name(domain.memberships[project["id"]], p, name=lambda m: m["id"])
        items = [{"memberDetails": {m["kind"]: {f"{m['kind']}Id": m["id"]}}, "designation": m["designation"],
                  "userCreatedDesignationId": m["userCreatedDesignationId"]} for m in members]
        return _listing("members", items, p)

    def delete_project_membership(self, p):
        _required(p, "member")
        domain = self._domain(p["domainIdentifier"])
        project = domain.project(p["projectIdentifier"])
        kind, identifier = self._member_profile(domain, p["member"])
        members = domain.memberships[project["id"]]
        for existing in members:
            if (existing["kind"], existing["id"]) == (kind, identifier):
                members.remove(existing)
                return None
        raise ResourceNotFoundException(f"{kind.capitalize()} {identifier} is not a member of project {project['id']}")

    # ---- policy grants -----------------------------------------------------------------
    def _grant_entity(self, p) -> tuple[Domain, tuple]:
        domain = self._domain(p["domainIdentifier"])
        if p["entityType"] != "DOMAIN_UNIT":
            raise NotImplementedError(f"policy grants on {p['entityType']}")
        domain.unit(p["entityIdentifier"])
        return domain, (p["entityType"], p["entityIdentifier"])

    def _check_grant(self, domain, p):
        """Checks the grant and returns its principal as DataZone keeps it (user and group identifiers resolved to
        profile IDs; one that names no profile is ResourceNotFoundException)."""
        if p["policyType"] in _NOT_ON_DOMAIN_UNITS:
            raise ValidationException(f"Policy type {p['policyType']} cannot be granted on a DOMAIN_UNIT")
        kind, principal = _one_member(p, "principal")
        resolved = domain.resolve_principal(p["principal"])
        if kind == "project" and principal.get("projectIdentifier"):
            domain.project(principal["projectIdentifier"])
        if kind == "domainUnit" and principal.get("domainUnitIdentifier"):
            domain.unit(principal["domainUnitIdentifier"])
        detail_kind, detail = _one_member(p, "detail")
        if detail_kind != _camel(p["policyType"]):
            raise ValidationException(f"detail.{detail_kind} does not match policyType {p['policyType']} "
                                      f"(expected detail.{_camel(p['policyType'])})")
        for project_profile in (detail or {}).get("projectProfiles", []):
            domain.profile(project_profile)
        return resolved

    def add_policy_grant(self, p):
        _required(p, "policyType", "principal", "detail")
        domain, key = self._grant_entity(p)
        principal = self._check_grant(domain, p)
        # clientToken (idempotencyToken): a repeat of an earlier request answers what that one answered. The window
        # and what AWS does when the grant was removed since are not documented; the stricter reading: remembered
        # until reset, the first answer replayed even if that grant is gone, a reuse with other terms a conflict.
        token, request = p.get("clientToken"), (key, p["policyType"], repr(principal), repr(p["detail"]))
        if token in domain.grant_tokens:
            first, grant_id = domain.grant_tokens[token]
            if first != request:
                raise ConflictException(f"Client token {token} was already used for another request")
            return {"grantId": grant_id}
        grants = domain.grants.setdefault(key, [])
        for grant in grants:
            if (grant["policyType"], grant["principal"], grant["detail"]) == (p["policyType"], principal, p["detail"]):
                raise ConflictException(f"This policy grant already exists ({grant['grantId']})")
        grant = {"grantId": "".join(secrets.choice(_GRANT) for _ in range(10)), "policyType": p["policyType"],
                 "principal": principal, "detail": p["detail"], "createdAt": utcnow(), "createdBy": self._caller()}
        grants.append(grant)
        if token:
            domain.grant_tokens[token] = (request, grant["grantId"])
        return {"grantId": grant["grantId"]}

    def list_policy_grants(self, p):
        _required(p, "policyType")
        domain, key = self._grant_entity(p)
        items = [g for g in domain.grants.get(key, []) if g["policyType"] == p["policyType"]]
        return _listing("grantList", items, {**p, "maxResults": p.get("maxResults") or 25})

    def remove_policy_grant(self, p):
        _required(p, "policyType", "principal")
        domain, key = self._grant_entity(p)
        grants = domain.grants.get(key, [])
        try:
            principal = domain.resolve_principal(p["principal"])
        except ResourceNotFoundException:
            principal = p["principal"]  # names no profile: matches no grant
        # Removing a grant that is not there succeeds, as the model has no ResourceNotFound for it.
        grants[:] = [g for g in grants if not (g["policyType"] == p["policyType"] and g["principal"] == principal
                                               and p.get("grantIdentifier") in (None, g["grantId"]))]


datazone_backends = BackendDict(DataZoneBackend, "datazone")

OPERATIONS = [name for name, fn in vars(DataZoneBackend).items() if callable(fn) and not name.startswith("_")]


@functools.cache
def _routes() -> list:
    """(method, path regex, operation) for every DataZone operation, from the model's request URIs."""
    model = get_service_model("datazone")
    routes = []
    for name in model.operation_names:
        http = model.operation_model(name).http
        path = re.escape(http["requestUri"].split("?")[0])  # labels {name}, greedy {name+}
        path = re.sub(r"\\\{(\w+)\\\+\\\}", r"(?P<\1>.+)", path)
        path = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", path)
        routes.append((http["method"], re.compile(path), name))
    return routes


class DataZoneResponse(BaseResponse):
    def __init__(self):
        super().__init__(service_name="datazone")
        self.automated_parameter_parsing = True  # params parsed from the botocore model

    @property
    def backend(self) -> DataZoneBackend:
        return datazone_backends[self.current_account][self.region]

    def _get_action_from_method_and_request_uri(self, request):
        """moto's router also requires an operation's required query parameters (e.g. ListPolicyGrants
        `policyType`) to be present, and answers a bare 404 without them; AWS routes on method and path
        and rejects the request with a ValidationException. Route like AWS; validation does the rest."""
        action = super()._get_action_from_method_and_request_uri(request)
        if action is None:
            path = request.raw_path.split("?")[0]
            found = [(name, m.groupdict()) for method, rx, name in _routes()
                     if method == request.method and (m := rx.fullmatch(path))]
            if len(found) == 1:
                action, labels = found[0]
                self.uri_match = {k: unquote(v) for k, v in labels.items()}
        return action


def _handler(name):
    def handler(self):
        with _lock:
            result = getattr(self.backend, name)(_plain(self.params))
        return EmptyResult() if result is None else ActionResult(result)
    handler.__name__ = name
    return handler


for _name in OPERATIONS:
    setattr(DataZoneResponse, _name, _handler(_name))


# moto's server synthesises the host "datazone.<region>.amazonaws.com" from the SigV4 scope and matches it
# against url_bases; moto's Smithy router then picks the operation from the model, so one path serves all.
url_bases = [r"https?://datazone\.(.+)\.amazonaws\.com", r"https?://datazone\.(.+)\.api\.aws"]
url_paths = {"{0}/v2/(?P<path>.*)$": DataZoneResponse.dispatch}


def install():
    """Serve this module as moto's `datazone` service (idempotent)."""
    register_service("datazone", sys.modules[__name__], url_bases)


# ---- seed ------------------------------------------------------------------------------------
def apply_seed(data: dict, account: dict) -> dict:
    """Domains from seed_data/datazone.json with fixed ids (domain, units, profiles, projects, environments; user and
    group profile IDs derived from the domain and the name), so ids survive resets. Tooling environments take
    `userRoleArn` as given (the IAM seed holds those roles)."""
    backend = datazone_backends[account["account_id"]][account["region"]]
    summary = {}
    with _lock:
        for d in data.get("domains", []):
            params = {k: v for k, v in d.items() if k not in ("id", "rootDomainUnitId", "toolingBlueprintId",
                                                               "domainUnits", "projectProfiles", "projects")}
            domain_id = backend.create_domain(params, d["id"], d["rootDomainUnitId"], d["toolingBlueprintId"])["id"]
            domain = backend.domains[domain_id]
            units = {domain.units[d["rootDomainUnitId"]]["name"]: d["rootDomainUnitId"]}
            for u in d.get("domainUnits", []):
                parent = units[u["parent"]] if u.get("parent") else d["rootDomainUnitId"]
                units[u["name"]] = backend.create_domain_unit(
                    {"domainIdentifier": domain_id, "name": u["name"], "parentDomainUnitIdentifier": parent,
                     "description": u.get("description")}, u["id"])["id"]
            profiles = {}
            for pp in d.get("projectProfiles", []):
                params = {k: v for k, v in pp.items() if k not in ("id", "domainUnit")}
                unit = units[pp["domainUnit"]] if pp.get("domainUnit") else d["rootDomainUnitId"]
                params.update(domainIdentifier=domain_id, domainUnitIdentifier=unit)
                profiles[pp["name"]] = backend.create_project_profile(params, pp["id"])["id"]
            projects, roles = {}, {}
            for pr in d.get("projects", []):
                project, role = _seed_project(backend, domain, pr, units, profiles)
                projects[pr["name"]] = project["id"]
                if role:
                    roles[pr["name"]] = role
            groups = {g["groupName"]: backend.create_group_profile({"domainIdentifier": domain_id,
                                                                     "groupIdentifier": g["groupName"]})["id"]
                      for g in d.get("groupProfiles", [])}
            users = {}
            for u in d.get("userProfiles", []):
                identifier = u["arn"] if u["type"] == "IAM" else u["username"]
                users[identifier] = backend.create_user_profile(
                    {"domainIdentifier": domain_id, "userIdentifier": identifier,
                     "userType": "IAM_ROLE" if u["type"] == "IAM" else "SSO_USER"})["id"]
            summary[d["name"]] = {"domainId": domain_id, "domainUnits": units, "projectProfiles": profiles,
                                  "projects": projects, "toolingEnvironments": roles, "groupProfiles": groups,
                                  "userProfiles": users}
    return {"domains": summary}


def _seed_project(backend, domain, pr, units, profiles) -> tuple[dict, dict | None]:
    """One project of a seed domain (`units`, `profiles`: name -> id) with its environments, fixed ids and deployed;
    returns it and its Tooling environment's user role ({environmentId, userRoleArn}), if it has one."""
    params = {k: v for k, v in pr.items() if k not in ("id", "domainUnit", "projectProfile", "environments")}
    params.update(domainIdentifier=domain.id, domainUnitId=units[pr["domainUnit"]],
                  projectProfileId=profiles[pr["projectProfile"]])
    project = backend.create_project(params, pr["id"], deploy_environments=False)
    profile = domain.profiles[project["projectProfileId"]]
    role = None
    for e in pr.get("environments", []):
        config = next(c for c in profile["environmentConfigurations"] if c["name"] == e["configuration"])
        env = backend._new_environment(domain, project, e.get("name", config["name"]),
                                       domain.blueprint(config["environmentBlueprintId"]), config=config,
                                       environment_id=e["id"], user_role_arn=e.get("userRoleArn"),
                                       extra_resources=e.get("provisionedResources", ()))
        if e.get("userRoleArn"):
            role = {"environmentId": env["id"], "userRoleArn": e["userRoleArn"]}
    project["environmentDeploymentDetails"] = {"overallDeploymentStatus": "SUCCESSFUL"}
    return project, role


def add_projects(account: dict, domain_id: str, projects: list) -> dict:
    """More projects, written as in seed_data/datazone.json, in an existing domain (the admin fixtures' way to grow
    the account); returns name -> {id, environmentId, userRoleArn}."""
    backend = datazone_backends[account["account_id"]][account["region"]]
    with _lock:
        domain = backend._domain(domain_id)
        units = {u["name"]: u["id"] for u in domain.units.values()}
        profiles = {pp["name"]: pp["id"] for pp in domain.profiles.values()}
        added = {}
        for pr in projects:
            project, role = _seed_project(backend, domain, pr, units, profiles)
            added[pr["name"]] = {"id": project["id"], **(role or {})}
        return added


def add_group_profiles(account: dict, domain_id: str, names: list) -> dict:
    """Group profiles (Identity Center groups given a profile in the domain), as `groupProfiles` in
    seed_data/datazone.json, in an existing domain: the admin fixtures' way to grow the account; returns name -> ID."""
    backend = datazone_backends[account["account_id"]][account["region"]]
    with _lock:
        return {name: backend.create_group_profile({"domainIdentifier": domain_id, "groupIdentifier": name})["id"]
                for name in names}
