//! Registry documentation (`docs/`), rendered from the provider's own declarations in the layout and style of
//! tfplugindocs: the provider page, one page per resource, data source and function, each with its example from
//! `examples/` and its schema, and the governance rules guide, with every rule of the catalog and the diagnostic the
//! engine reports on that rule's failing example (`governance::examples`). Nothing about the schema or the rules is
//! written by hand here, so the docs cannot drift from the code; `xtask/tests/docs.rs` fails when the committed pages
//! are stale and `make docs` (`cargo xtask docs`) rewrites them.

mod markdown;
mod permissions;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use hyperpod_governance::{Layer, Needs, RuleId, examples};
use hyperpod_protocol::convert::attribute_description;
use hyperpod_protocol::diagnostics::{Diagnostic, Severity};
use hyperpod_protocol::list::ListResource;
use hyperpod_protocol::plugin::PluginProvider;
use hyperpod_protocol::resource::{DataSource, Function, Resource};
use hyperpod_protocol::schema::{
    Attribute, AttributeKind, Block, FunctionSignature, IdentitySchema, NestedBlock, Nesting, Presence, Schema,
};
use hyperpod_protocol::value::Type;
use markdown::{fenced, front_matter_in, heading, page};
use terraform_provider_hyperpod::provider::{HyperpodProvider, PROVIDER_ADDRESS};

/// The directories and the files under `docs/` that are generated; anything else there (other guides, e.g.
/// `docs/sandbox.md`) is hand-written.
const GENERATED_DIRS: [&str; 4] = ["resources", "data-sources", "list-resources", "functions"];
const INDEX: &str = "index.md";
const GOVERNANCE_GUIDE: &str = "guides/governance-rules.md";
const PERMISSIONS_GUIDE: &str = "guides/permissions.md";
const GENERATED_FILES: [&str; 3] = [INDEX, GOVERNANCE_GUIDE, PERMISSIONS_GUIDE];

/// Every generated page, keyed by its path relative to `root` (e.g. `docs/resources/scheduling_policy.md`).
///
/// Panics naming the file when an example a page needs is missing from `root/examples`.
pub fn render_all(root: &Path) -> BTreeMap<PathBuf, String> {
    let provider = HyperpodProvider::default();
    let name = provider_name();
    let examples = Examples { root };
    let mut pages = BTreeMap::new();
    pages.insert(
        Path::new("docs").join(INDEX),
        render_index(name, provider.schema(), &examples),
    );
    pages.insert(Path::new("docs").join(GOVERNANCE_GUIDE), render_governance_guide());
    pages.insert(Path::new("docs").join(PERMISSIONS_GUIDE), permissions::render());
    for resource in provider.resources() {
        pages.insert(
            page_path("resources", name, resource.type_name()),
            render_resource(name, resource.as_ref(), &examples),
        );
    }
    for data_source in provider.data_sources() {
        pages.insert(
            page_path("data-sources", name, data_source.type_name()),
            render_data_source(name, data_source.as_ref(), &examples),
        );
    }
    for list in provider.list_resources() {
        pages.insert(
            page_path("list-resources", name, list.type_name()),
            render_list_resource(name, list.as_ref(), &examples),
        );
    }
    for function in provider.functions() {
        pages.insert(
            Path::new("docs/functions").join(format!("{}.md", function.name())),
            render_function(name, function.as_ref(), &examples),
        );
    }
    pages
}

/// Writes every page under `root` and removes generated-looking pages that no longer have a source (a resource that
/// was renamed or removed). Hand-written pages outside the generated directories and files, e.g. other guides in
/// `docs/guides/` or `docs/sandbox.md`, are kept.
pub fn write_all(root: &Path) -> io::Result<()> {
    let pages = render_all(root);
    for stale in existing(root)?.difference(&pages.keys().cloned().collect()) {
        fs::remove_file(root.join(stale))?;
    }
    for (path, content) in &pages {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        if fs::read_to_string(&path).ok().as_deref() != Some(content.as_str()) {
            fs::write(&path, content)?;
        }
    }
    Ok(())
}

/// The pages currently on disk where `render_all` writes (`docs/index.md`, `docs/guides/governance-rules.md` and the
/// `.md` files of the generated directories), relative to `root`.
pub fn existing(root: &Path) -> io::Result<BTreeSet<PathBuf>> {
    let mut found = BTreeSet::new();
    let docs = Path::new("docs");
    for file in GENERATED_FILES {
        if root.join(docs).join(file).is_file() {
            found.insert(docs.join(file));
        }
    }
    for dir in GENERATED_DIRS {
        let relative = docs.join(dir);
        let entries = match fs::read_dir(root.join(&relative)) {
            Ok(entries) => entries,
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(err),
        };
        for entry in entries {
            let file_name = entry?.file_name();
            if Path::new(&file_name).extension().is_some_and(|ext| ext == "md") {
                found.insert(relative.join(file_name));
            }
        }
    }
    Ok(found)
}

/// `hyperpod`, from the registry address.
fn provider_name() -> &'static str {
    PROVIDER_ADDRESS.rsplit('/').next().unwrap_or(PROVIDER_ADDRESS)
}

/// `docs/resources/scheduling_policy.md` for `hyperpod_scheduling_policy`: the registry drops the provider prefix.
fn page_path(dir: &str, provider: &str, type_name: &str) -> PathBuf {
    let short = type_name
        .strip_prefix(provider)
        .and_then(|rest| rest.strip_prefix('_'))
        .unwrap_or(type_name);
    Path::new("docs").join(dir).join(format!("{short}.md"))
}

// ---- examples -------------------------------------------------------------------------------------------------

struct Examples<'a> {
    root: &'a Path,
}

impl Examples<'_> {
    /// The files `examples/<dir>/<prefix>*.tf` (e.g. `resource.tf`, `resource-with-timeouts.tf`), sorted by name,
    /// each as a fenced block. Panics when there is none: every page shows at least one example.
    fn usage(&self, dir: &str, prefix: &str) -> String {
        self.usage_of(dir, prefix, ".tf")
    }

    /// As `usage`, for files ending in `suffix` (`.tfquery.hcl` for list resources).
    fn usage_of(&self, dir: &str, prefix: &str, suffix: &str) -> String {
        let relative = Path::new("examples").join(dir);
        let mut names: Vec<String> = fs::read_dir(self.root.join(&relative))
            .map(|entries| {
                entries
                    .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                    .filter(|name| name.starts_with(prefix) && name.ends_with(suffix))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        assert!(
            !names.is_empty(),
            "{}/{prefix}{suffix} is missing: every docs page shows an example; write one (terraform fmt style)",
            relative.display()
        );
        names
            .iter()
            .map(|name| fenced("terraform", &self.read(&relative.join(name))))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A file under `examples/`, or `None` when it does not exist.
    fn optional(&self, relative: &Path) -> Option<String> {
        self.root.join(relative).is_file().then(|| self.read(relative))
    }

    fn read(&self, relative: &Path) -> String {
        fs::read_to_string(self.root.join(relative))
            .unwrap_or_else(|err| panic!("cannot read {}: {err}", relative.display()))
    }
}

// ---- pages ----------------------------------------------------------------------------------------------------

/// The YAML front matter tfplugindocs writes; the registry shows `description` in listings and search.
fn front_matter(page_title: &str, description: &str) -> String {
    front_matter_in(page_title, "", description)
}

fn render_index(name: &str, schema: &Schema, examples: &Examples) -> String {
    let description = &schema.block.description;
    page(&[
        front_matter(&format!("{name} Provider"), description),
        heading(&format!("{name} Provider"), description),
        format!("## Example Usage\n\n{}", examples.usage("provider", "provider")),
        AUTHENTICATION.to_string(),
        PERMISSIONS.replace("{guide}", &registry_docs_url("guides/permissions")),
        governance_section(),
        SANDBOX.to_string(),
        schema_markdown(&schema.block),
    ])
}

const AUTHENTICATION: &str = "\
## Authentication and configuration

The provider finds credentials and region the way the AWS CLI, the AWS SDKs and the AWS provider do, so most
configurations need no arguments at all. In order of precedence:

1. Arguments in the provider block (`region`, `profile`, `shared_config_files`, `shared_credentials_files`).
2. Environment variables: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`,
   `AWS_PROFILE`.
3. The shared credentials and config files (`~/.aws/credentials`, `~/.aws/config`), including SSO and
   `credential_process` profiles.
4. Web identity (`AWS_WEB_IDENTITY_TOKEN_FILE` with `AWS_ROLE_ARN`, as EKS IAM roles for service accounts set
   them), container credentials (ECS, EKS Pod Identity) and the EC2 instance profile (IMDSv2).

The provider block has no arguments for static access keys: keep secrets out of configuration and use a profile,
environment variables or a role instead.

**Endpoints.** `AWS_ENDPOINT_URL` sends every AWS call to one endpoint and `AWS_ENDPOINT_URL_<SERVICE>` (for
example `AWS_ENDPOINT_URL_SAGEMAKER`) overrides it for one service. The `endpoints` block overrides both, per
service.

**Assuming a role.** With an `assume_role` block, the credentials found above are used only to call
`sts:AssumeRole`; every other call runs as the assumed role.

On configuration the provider calls `sts:GetCallerIdentity` once. It fails there, before planning anything, when
no region is set, when the credentials do not work, or when the account is not in `allowed_account_ids` (or is in
`forbidden_account_ids`).
";

/// The index page's pointer to the permissions guide; `{guide}` becomes its registry URL.
const PERMISSIONS: &str = "\
## Permissions

The IAM actions each resource and data source may call, as least-privilege policies for the whole provider and
per resource, and the Kubernetes RBAC tenants and task view restrictions need, generated from the provider's code
and checked against the calls the acceptance tests make: [Permissions]({guide}).
";

/// The index page's pointer to the governance guide; `{guide}` becomes the guide's registry URL.
const GOVERNANCE: &str = "\
## Governance rules

Every plan checks the governance rule catalog (CON-, ORG-, PRJ-, CLU-, WKL-, EXC-, OBS- and LIF- rules) against the
configuration and the live account, and reports each finding as an error or a warning that names the rule, the
attribute, what was observed and the fix. Every rule, what it needs and the diagnostic it reports on an example:
[Governance rules]({guide}). In a pull request, `terraform-provider-hyperpod report` turns the plan into one
governance report beside it (a verdict line, the four layers per connection contract, what each tenant gets):
[Reviewing a plan]({review_guide}).
";

/// The pointer to the guide, then every rule of the catalog, each linking to its section there, so the model and
/// its IDs are on the provider's front page.
fn governance_section() -> String {
    let guide = registry_docs_url("guides/governance-rules");
    let mut out = GOVERNANCE
        .replace("{guide}", &guide)
        .replace("{review_guide}", &registry_docs_url("guides/reviewing-a-plan"));
    out.push_str("\n| Rule | Layer | What it checks |\n|---|---|---|\n");
    for rule in RuleId::ALL {
        let _ = writeln!(
            out,
            "| [{}]({guide}#{}) | {} | {} |",
            rule.id(),
            rule_anchor(*rule),
            layer_name(rule.layer()),
            rule.title().replace('|', "\\|")
        );
    }
    out
}

/// A page of these docs on the registry: `https://registry.terraform.io/providers/<namespace>/<name>/latest/docs/<page>`.
fn registry_docs_url(page: &str) -> String {
    let (host, provider) = PROVIDER_ADDRESS
        .split_once('/')
        .unwrap_or(("registry.terraform.io", PROVIDER_ADDRESS));
    format!("https://{host}/providers/{provider}/latest/docs/{page}")
}

const SANDBOX: &str = "\
## Local sandbox

Everything can be tried without an AWS account: `make demo` builds the provider, starts a local AWS sandbox (moto
with HyperPod extensions, seeded with an EKS-orchestrated cluster named `ml-capacity`), and applies
`examples/quickstart`. To point your own configuration at the sandbox, start it with `make sandbox` and set
`AWS_ENDPOINT_URL=http://127.0.0.1:4599` with dummy credentials; `acceptance-tests/README.md` lists the exact
environment and the APIs the sandbox covers.
";

type Client = <HyperpodProvider as PluginProvider>::Client;

fn render_resource(provider: &str, resource: &dyn Resource<Client>, examples: &Examples) -> String {
    let type_name = resource.type_name();
    let block = &resource.schema().block;
    page(&[
        front_matter(&format!("{type_name} Resource - {provider}"), &block.description),
        heading(&format!("{type_name} (Resource)"), &block.description),
        format!(
            "## Example Usage\n\n{}",
            examples.usage(&format!("resources/{type_name}"), "resource")
        ),
        replacement_markdown(block),
        schema_markdown(block),
        import_markdown(type_name, resource.identity_schema(), examples),
    ])
}

/// What identifies the object: a change of any of these attributes replaces it, those the provider derives (a
/// tenant's cluster, from its contract) included. Replacements destroy the old object first, then create the new;
/// a replacement that apply would refuse is planned in place instead (`docs/design/where-rules-run.md`).
fn replacement_markdown(block: &Block) -> String {
    let forcing: Vec<String> = block
        .attributes
        .iter()
        .filter(|attribute| attribute.requires_replace)
        .map(|attribute| {
            if attribute.presence == Presence::Computed {
                format!("`{}` (derived)", attribute.name)
            } else {
                format!("`{}`", attribute.name)
            }
        })
        .collect();
    if forcing.is_empty() {
        return "## Replacement\n\nNo argument forces a replacement: every change is made in place.\n".to_string();
    }
    format!(
        "## Replacement\n\nA change of {} replaces the resource: the old object is removed first, then the new one \
         made, so nothing of the old is left behind. A replacement that governance rules would refuse is planned in \
         place instead, and refused at apply before anything is written (nothing is destroyed for a create that would \
         be refused).\n",
        forcing.join(", ")
    )
}

fn render_data_source(provider: &str, data_source: &dyn DataSource<Client>, examples: &Examples) -> String {
    let type_name = data_source.type_name();
    let block = &data_source.schema().block;
    page(&[
        front_matter(&format!("{type_name} Data Source - {provider}"), &block.description),
        heading(&format!("{type_name} (Data Source)"), &block.description),
        format!(
            "## Example Usage\n\n{}",
            examples.usage(&format!("data-sources/{type_name}"), "data-source")
        ),
        schema_markdown(block),
        // Prose the schema cannot say (where the data comes from, with sources), next to the example.
        examples
            .optional(&Path::new("examples/data-sources").join(type_name).join("notes.md"))
            .unwrap_or_default(),
    ])
}

/// A list resource's page (tfplugindocs' `list-resources`): the query example and the `config` block's schema.
fn render_list_resource(provider: &str, list: &dyn ListResource<Client>, examples: &Examples) -> String {
    let type_name = list.type_name();
    let block = &list.schema().block;
    page(&[
        front_matter(&format!("{type_name} List Resource - {provider}"), &block.description),
        heading(&format!("{type_name} (List Resource)"), &block.description),
        format!(
            "## Example Usage\n\n{}\nRun it with `terraform query` (Terraform 1.14 or later); \
             `terraform query -generate-config-out=generated.tf` writes an `import` block and a resource block for each \
             result.\n",
            examples.usage_of(&format!("list-resources/{type_name}"), "list-resource", ".tfquery.hcl")
        ),
        // What a generated block still needs and what its plan shows: the resource's, not the schema's, to say.
        examples
            .optional(&Path::new("examples/list-resources").join(type_name).join("notes.md"))
            .unwrap_or_default(),
        schema_markdown(block),
    ])
}

fn render_function(provider: &str, function: &dyn Function, examples: &Examples) -> String {
    let name = function.name();
    let signature = function.signature();
    let mut arguments = String::from("## Arguments\n\n");
    for (index, parameter) in signature.parameters.iter().enumerate() {
        let _ = writeln!(
            arguments,
            "{}. `{}` ({}) {}",
            index + 1,
            parameter.name,
            type_label(&parameter.ty),
            parameter.description.trim()
        );
    }
    page(&[
        front_matter(&format!("{name} function - {provider}"), &signature.summary),
        heading(&format!("function: {name}"), &signature.description),
        format!(
            "## Example Usage\n\n{}",
            examples.usage(&format!("functions/{name}"), "function")
        ),
        format!(
            "## Signature\n\n{}\nCall it as `provider::{provider}::{name}(…)` in Terraform 1.8 and later, from a \
             module that lists the provider in `required_providers`.\n",
            fenced("text", &signature_line(name, signature))
        ),
        arguments,
    ])
}

/// `team_namespace(team string) string`, in Terraform's type syntax.
fn signature_line(name: &str, signature: &FunctionSignature) -> String {
    let parameters: Vec<String> = signature
        .parameters
        .iter()
        .map(|p| format!("{} {}", p.name, hcl_type(&p.ty)))
        .collect();
    format!("{name}({}) {}", parameters.join(", "), hcl_type(&signature.return_type))
}

fn import_markdown(type_name: &str, identity: Option<&IdentitySchema>, examples: &Examples) -> String {
    let dir = Path::new("examples/resources").join(type_name);
    let by_id = examples.optional(&dir.join("import.sh"));
    let by_identity = identity.map(|identity| {
        let file = dir.join("import-by-identity.tf");
        let example = examples.optional(&file).unwrap_or_else(|| {
            panic!(
                "{} is missing: {type_name} has an identity schema, so its docs show an `import` block by identity",
                file.display()
            )
        });
        (identity, example)
    });
    if by_id.is_none() && by_identity.is_none() {
        return String::new();
    }
    let mut parts = vec![String::from("## Import\n")];
    if let Some((identity, example)) = by_identity {
        parts.push(
            "In Terraform 1.12 and later, an [`import` block](https://developer.hashicorp.com/terraform/language/import) \
             can name the object by its identity:\n"
                .to_string(),
        );
        parts.push(fenced("terraform", &example));
        let mut table =
            String::from("### Identity Schema\n\n| Attribute | Type | For import | Description |\n|---|---|---|---|\n");
        for attribute in &identity.attributes {
            let _ = writeln!(
                table,
                "| `{}` | {} | {} | {} |",
                attribute.name,
                type_label(&attribute.ty),
                if attribute.required_for_import {
                    "Required"
                } else {
                    "Optional"
                },
                attribute.description.trim().replace('|', "\\|")
            );
        }
        parts.push(table);
    }
    if let Some(example) = by_id {
        parts.push(
            "The [`terraform import` command](https://developer.hashicorp.com/terraform/cli/commands/import) takes an \
             import ID, for example:\n"
                .to_string(),
        );
        parts.push(fenced("shell", &example));
    }
    parts.join("\n")
}

// ---- governance guide ------------------------------------------------------------------------------------------

const GOVERNANCE_GUIDE_DESCRIPTION: &str =
    "Every governance rule the provider checks at plan time, what it needs, and the diagnostic it reports.";

const GOVERNANCE_INTRO: &str = "\
Every `terraform plan` checks the rules of the governance catalog. They cover the four control layers that must
agree before a project uses shared HyperPod capacity: **organization** (ORG: domain units and accounts),
**project** (PRJ: members and roles), **cluster** (CLU: orchestrator, access entries, endpoint, task view
restrictions) and **workload** (WKL: tenant namespaces, quotas, sharing, scheduling, access and data). Alongside
them are the connection contract itself (CON), its exceptions (EXC), observability (OBS) and the contract's
lifecycle (LIF). A rule's ID never changes meaning once published.

A failed rule becomes a diagnostic on the resource that checked it, pointing at the attribute at fault (the
attribute paths below are relative to that resource), with what was observed and how to fix it. Every check is
also listed on the resource, as a reviewer's checklist: the IDs of the rules that passed in `passed_checks`, those
that do not apply in `not_applicable_checks`, and every failed, warning, skipped or excepted rule in `findings`,
with its detail.

**Severity.** `E`: a finding is refused — a warning at plan whose summary ends `(apply refuses this change)`, and an
error at apply, before the resource writes anything. No rule ever fails a plan: `terraform destroy` refreshes with
one, and must always go through ([where each rule runs](../design/where-rules-run.md)). `W`: a finding is a warning.
`strict = true` in the provider block (or on a `hyperpod_connection_contract`, for its own checks) refuses warnings
too, for pipelines that must not apply a change with open findings. A pull request fails on a refusal through the
governance report's exit code, or a `postcondition` on the resource's `findings`.

**Config and live.** A `config` rule reads only the configuration. A `live` rule also reads the AWS account during
the plan (the cluster, the Unified Studio project, IAM roles, EKS); `config or live` uses a referenced resource's
configuration when it is in the same run and a live read otherwise. A rule is skipped, never silently passed,
when a value it needs is not known until apply (visible as such in the plan) or when a fact cannot be read (no
permission, a service error): the second case is reported as a `(not checked)` warning, refused under `strict`.
What a rule reads of other teams and projects (their compute quotas, connections, restrictions) is judged beside the
checklist the plan records, so that it reads the same when Terraform plans again at apply.
";

const GOVERNANCE_EXCEPTIONS: &str = "\
**Exceptions.** A failed rule can be waived by an owned, dated `exception {}` block in the
`hyperpod_connection_contract` that backs the resource (EXC-1):
";

/// The `exception {}` block the guide shows; `exception_example_matches_the_contract_schema` keeps it in step with
/// the resource's schema.
const EXCEPTION_EXAMPLE: &str = "\
resource \"hyperpod_connection_contract\" \"research\" {
  # ...

  exception {
    rule    = \"WKL-8\"
    owner   = \"ml-platform-leads@example.com\"
    expires = \"2027-01-31\"
    reason  = \"legacy notebooks need open egress until the proxy lands\"
  }
}
";

const GOVERNANCE_EXCEPTIONS_AFTER: &str = "\
While the exception is valid (it names an owner and has not expired), the waived rule refuses nothing and is listed
in `findings` as `excepted`, with the exception and what it waived. An exception without an owner, or past its expiry date,
fails EXC-1 and no longer waives anything; EXC-1 itself cannot be waived.
";

fn layer_name(layer: Layer) -> &'static str {
    match layer {
        Layer::Contract => "Contract",
        Layer::Organization => "Organization",
        Layer::Project => "Project",
        Layer::Cluster => "Cluster",
        Layer::Workload => "Workload",
        Layer::Exceptions => "Exceptions",
        Layer::Observability => "Observability",
        Layer::Lifecycle => "Lifecycle",
    }
}

fn needs_label(needs: Needs) -> &'static str {
    match needs {
        Needs::Config => "config",
        Needs::Live => "live",
        Needs::ConfigOrLive => "config or live",
    }
}

fn severity_letter(severity: hyperpod_governance::FindingSeverity) -> &'static str {
    match severity {
        hyperpod_governance::FindingSeverity::Error => "E",
        hyperpod_governance::FindingSeverity::Warning => "W",
    }
}

/// `con-1` for CON-1: the anchor of the rule's section.
fn rule_anchor(rule: RuleId) -> String {
    rule.id().to_ascii_lowercase()
}

/// A diagnostic the way the Terraform CLI prints it at plan: `Warning: <summary>`, a blank line, the detail. A rule's
/// error is a refusal there (`refusal::plan_warning`): apply returns it as the error.
fn terraform_diagnostic(diagnostic: &Diagnostic) -> String {
    let shown = match diagnostic.severity {
        Severity::Error => hyperpod_protocol::refusal::plan_warning(diagnostic, false),
        Severity::Warning => diagnostic.clone(),
    };
    format!("Warning: {}\n\n{}", shown.summary, shown.detail)
}

/// `docs/guides/governance-rules.md`: the catalog as a table, then one section per rule with the diagnostics the
/// engine reports on the rule's failing example, rendered as Terraform shows them at plan (without `strict`).
fn render_governance_guide() -> String {
    let title = "Governance rules";
    let mut summary = String::from("## Summary\n\n| ID | Layer | Rule | Severity | Needs |\n|---|---|---|---|---|\n");
    for rule in RuleId::ALL {
        let _ = writeln!(
            summary,
            "| [{}](#{}) | {} | {} | {} | {} |",
            rule.id(),
            rule_anchor(*rule),
            layer_name(rule.layer()),
            rule.title().replace('|', "\\|"),
            severity_letter(rule.default_severity()),
            needs_label(rule.needs()),
        );
    }
    let mut sections = vec![
        front_matter_in(title, "Guides", GOVERNANCE_GUIDE_DESCRIPTION),
        heading(title, GOVERNANCE_INTRO),
        GOVERNANCE_EXCEPTIONS.to_string(),
        fenced("terraform", EXCEPTION_EXAMPLE),
        GOVERNANCE_EXCEPTIONS_AFTER.to_string(),
        summary,
    ];
    let mut layer = None;
    for rule in RuleId::ALL {
        if layer != Some(rule.layer()) {
            layer = Some(rule.layer());
            sections.push(format!("## {}\n", layer_name(rule.layer())));
        }
        sections.push(rule_section(*rule));
    }
    page(&sections)
}

fn rule_section(rule: RuleId) -> String {
    let check = examples::failing(rule);
    let findings = check.findings();
    assert!(
        !findings.is_empty(),
        "the failing example of {} does not fail ({:?}); fix governance::examples",
        rule.id(),
        check.outcome
    );
    let severity = match rule.default_severity() {
        hyperpod_governance::FindingSeverity::Error => "E (refused at apply; a warning at plan)",
        hyperpod_governance::FindingSeverity::Warning => "W (a warning; refused under `strict`)",
    };
    let mut out = format!(
        "<a id=\"{}\"></a>\n### {}\n\n{}.\n\nSeverity: {severity}. Needs: {}.\n\n",
        rule_anchor(rule),
        rule.id(),
        rule.title(),
        needs_label(rule.needs())
    );
    out.push_str(if findings.len() == 1 {
        "Example diagnostic:\n"
    } else {
        "Example diagnostics:\n"
    });
    for finding in findings {
        let diagnostic = terraform_provider_hyperpod::findings::finding_diagnostic(finding, false);
        let at = if diagnostic.path.is_root() {
            "the resource block as a whole".to_string()
        } else {
            format!("`{}`", diagnostic.path)
        };
        let _ = write!(
            out,
            "\n{}\nAttribute path: {at}.\n",
            fenced("text", &terraform_diagnostic(&diagnostic))
        );
    }
    if let Some(notes) = rule_notes(rule) {
        out.push('\n');
        out.push_str(&notes);
    }
    out
}

/// What a rule's section says beyond its example diagnostic, where the rule needs explaining.
fn rule_notes(rule: RuleId) -> Option<String> {
    match rule {
        RuleId::Wkl5 => Some(format!(
            "{WKL_5_REQUIRES}\n{}\n",
            fenced("terraform", include_str!("../../examples/aws-two-teams/main.tf"))
        )),
        RuleId::Wkl3 => Some(WKL_3_ONE_ALLOCATION.to_string()),
        _ => None,
    }
}

const WKL_3_ONE_ALLOCATION: &str = "\
**One cluster, one allocation.** Two allocations of one cluster each judge only their own teams, so together they \
can overcommit it. Each allocation claims its cluster (the Parameter Store parameter \
`/hyperpod-governance/cluster-allocations/<cluster>`, recording its teams); a second allocation of the cluster, in \
this configuration or another, is refused at its `cluster_name`, at plan once the first holds the claim and at apply \
always (of two applied at once, one holds the cluster). To move an allocation to another configuration, drop it with \
a `removed` block (`destroy = false`) and import it where it goes by the cluster's name: import takes the claim \
over with its teams.
";

const WKL_5_REQUIRES: &str = "\
**What WKL-5 requires.** A borrow limit (1-500 %) and absolute borrow limits only with `LendAndBorrow`, each \
absolute limit of an instance type (and MIG profile) the cluster has; a tenant that names lenders in `borrows_from` \
borrows, and each of them is another team of the cluster that lends; and where the cluster allocation records a \
team's `sharing`, the tenant's sharing in effect is that one (strategy and borrow limit). The sharing in effect is \
what SageMaker holds: the `sharing` block, or without one SageMaker's default, `LendAndBorrow` with a 50 % borrow \
limit (an existing quota keeps its own), so writing a default out never changes the verdict.

**A borrower with no lender is not a finding.** SageMaker accepts it: there is simply nothing to borrow until a \
team lends. Every quota borrows by default, so requiring a lender would fail the first team of every cluster, and \
two teams that lend to each other could never plan (neither can name the other in `borrows_from`: a dependency \
cycle). The passed check says whom the tenant can borrow from, or that no other team lends yet.

**Two teams that lend to each other**, AWS's own setup (`examples/aws-two-teams`): the allocation records each \
team's sharing beside its guaranteed share, both tenants reference the allocation, and the first plan has no \
diagnostic.
";

// ---- schema ---------------------------------------------------------------------------------------------------

/// One item of a schema list: an attribute or a nested block.
enum Item<'a> {
    Attribute(&'a Attribute),
    Block(&'a NestedBlock),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Required,
    Optional,
    ReadOnly,
}

impl Group {
    const ALL: [Group; 3] = [Group::Required, Group::Optional, Group::ReadOnly];
    fn title(self) -> &'static str {
        match self {
            Group::Required => "Required",
            Group::Optional => "Optional",
            Group::ReadOnly => "Read-Only",
        }
    }
}

/// A nested schema still to be written below the top-level lists.
struct Pending<'a> {
    anchor: String,
    path: String,
    kind: PendingKind<'a>,
}

enum PendingKind<'a> {
    Block(&'a Block),
    /// Nested attributes; `computed` when the parent attribute is read-only, so its children are too.
    Attributes(&'a [Attribute]),
    /// The attribute types of an object type (e.g. `List of Object`).
    Object(&'a BTreeMap<String, Type>),
}

/// `## Schema` with Required / Optional / Read-Only lists and one anchored section per nested schema, in declaration
/// order, the way tfplugindocs writes it.
fn schema_markdown(block: &Block) -> String {
    let mut out = String::from("<!-- schema generated by xtask/src/docs.rs -->\n## Schema\n");
    let mut pending = VecDeque::new();
    write_groups(&mut out, block_items(block), "", "", 3, &mut pending);
    while let Some(next) = pending.pop_front() {
        let _ = write!(
            out,
            "\n<a id=\"{}\"></a>\n### Nested Schema for `{}`\n",
            next.anchor, next.path
        );
        let prefix = format!("{}--", next.anchor.split_once("--").map_or("", |(_, rest)| rest));
        match next.kind {
            PendingKind::Block(block) => {
                write_groups(&mut out, block_items(block), &prefix, &next.path, 0, &mut pending);
            }
            PendingKind::Attributes(attributes) => write_groups(
                &mut out,
                attributes.iter().map(Item::Attribute).collect(),
                &prefix,
                &next.path,
                0,
                &mut pending,
            ),
            PendingKind::Object(fields) => {
                out.push_str("\nRead-Only:\n\n");
                for (field, ty) in fields {
                    let _ = write!(out, "- `{field}` ({})", type_label(ty));
                    let path = format!("{}.{field}", next.path);
                    if let Some(object) = object_fields(ty) {
                        let anchor = format!("nestedobjatt--{prefix}{field}");
                        let _ = write!(out, " (see [below for nested schema](#{anchor}))");
                        pending.push_back(Pending {
                            anchor,
                            path,
                            kind: PendingKind::Object(object),
                        });
                    }
                    out.push('\n');
                }
            }
        }
    }
    out
}

fn block_items(block: &Block) -> Vec<Item<'_>> {
    block
        .attributes
        .iter()
        .map(Item::Attribute)
        .chain(block.blocks.iter().map(Item::Block))
        .collect()
}

/// Writes the Required / Optional / Read-Only lists of one schema level: `### Required` headings at the top level
/// (`heading` 3), `Required:` lines in nested sections (`heading` 0), as tfplugindocs does.
fn write_groups<'a>(
    out: &mut String,
    items: Vec<Item<'a>>,
    anchor_prefix: &str,
    path: &str,
    heading: usize,
    pending: &mut VecDeque<Pending<'a>>,
) {
    for group in Group::ALL {
        let members: Vec<&Item> = items.iter().filter(|item| item_group(item) == group).collect();
        if members.is_empty() {
            continue;
        }
        if heading > 0 {
            let _ = write!(out, "\n{} {}\n\n", "#".repeat(heading), group.title());
        } else {
            let _ = write!(out, "\n{}:\n\n", group.title());
        }
        for item in members {
            out.push_str(&item_line(item, anchor_prefix, path, pending));
            out.push('\n');
        }
    }
}

fn item_group(item: &Item) -> Group {
    match item {
        Item::Attribute(attribute) => match attribute.presence {
            Presence::Required => Group::Required,
            Presence::Optional | Presence::OptionalComputed => Group::Optional,
            Presence::Computed => Group::ReadOnly,
        },
        Item::Block(nested) if nested.min_items > 0 => Group::Required,
        Item::Block(nested) if block_is_read_only(&nested.block) => Group::ReadOnly,
        Item::Block(_) => Group::Optional,
    }
}

fn block_is_read_only(block: &Block) -> bool {
    block.attributes.iter().all(|a| a.presence == Presence::Computed)
        && block.blocks.iter().all(|b| block_is_read_only(&b.block))
}

/// ``- `name` (String, Sensitive) Description. (see [below for nested schema](#nestedblock--name))``
fn item_line<'a>(
    item: &Item<'a>,
    anchor_prefix: &str,
    parent_path: &str,
    pending: &mut VecDeque<Pending<'a>>,
) -> String {
    let name = match item {
        Item::Attribute(attribute) => attribute.name,
        Item::Block(nested) => nested.name,
    };
    let path = if parent_path.is_empty() {
        name.to_string()
    } else {
        format!("{parent_path}.{name}")
    };
    let mut flags = Vec::new();
    let (kind, description, deprecation, nested) = match item {
        Item::Attribute(attribute) => {
            if attribute.sensitive {
                flags.push("Sensitive".to_string());
            }
            if attribute.write_only {
                flags.push("Write-only".to_string());
            }
            let nested = match &attribute.kind {
                AttributeKind::Nested { attributes, .. } => Some((
                    format!("nestedatt--{anchor_prefix}{name}"),
                    PendingKind::Attributes(attributes.as_slice()),
                )),
                AttributeKind::Primitive(ty) => object_fields(ty).map(|fields| {
                    (
                        format!("nestedobjatt--{anchor_prefix}{name}"),
                        PendingKind::Object(fields),
                    )
                }),
            };
            (
                attribute_kind(attribute),
                attribute_description(attribute),
                attribute.deprecation.as_deref(),
                nested,
            )
        }
        Item::Block(nested) => {
            let mut kind = match nested.nesting {
                Nesting::Single => "Block".to_string(),
                Nesting::List => "Block List".to_string(),
                Nesting::Set => "Block Set".to_string(),
                Nesting::Map => "Block Map".to_string(),
            };
            if nested.nesting == Nesting::Single {
                kind.push_str(if nested.min_items > 0 {
                    ", Required"
                } else {
                    ", Optional"
                });
            } else {
                if nested.min_items > 0 {
                    let _ = write!(kind, ", Min: {}", nested.min_items);
                }
                if nested.max_items > 0 {
                    let _ = write!(kind, ", Max: {}", nested.max_items);
                }
            }
            (
                kind,
                nested.block.description.clone(),
                nested.block.deprecation.as_deref(),
                Some((
                    format!("nestedblock--{anchor_prefix}{name}"),
                    PendingKind::Block(&nested.block),
                )),
            )
        }
    };
    if deprecation.is_some() {
        flags.push("Deprecated".to_string());
    }
    let mut line = format!("- `{name}` ({kind}");
    for flag in flags {
        let _ = write!(line, ", {flag}");
    }
    line.push(')');
    let description = description.trim();
    if !description.is_empty() {
        let _ = write!(line, " {description}");
    }
    if let Some(message) = deprecation {
        let _ = write!(line, " **Deprecated:** {}", message.trim());
    }
    if let Some((anchor, kind)) = nested {
        let _ = write!(line, " (see [below for nested schema](#{anchor}))");
        pending.push_back(Pending { anchor, path, kind });
    }
    line
}

/// `String`, `List of String`, `Attributes List`, …
fn attribute_kind(attribute: &Attribute) -> String {
    match &attribute.kind {
        AttributeKind::Primitive(ty) => type_label(ty),
        AttributeKind::Nested { nesting, .. } => match nesting {
            Nesting::Single => "Attributes".to_string(),
            Nesting::List => "Attributes List".to_string(),
            Nesting::Set => "Attributes Set".to_string(),
            Nesting::Map => "Attributes Map".to_string(),
        },
    }
}

/// Type names as tfplugindocs writes them: `Boolean`, `List of String`, `Map of Object`.
fn type_label(ty: &Type) -> String {
    match ty {
        Type::Bool => "Boolean".to_string(),
        Type::Number => "Number".to_string(),
        Type::String => "String".to_string(),
        Type::Dynamic => "Dynamic".to_string(),
        Type::List(element) => format!("List of {}", type_label(element)),
        Type::Set(element) => format!("Set of {}", type_label(element)),
        Type::Map(element) => format!("Map of {}", type_label(element)),
        Type::Object(_) => "Object".to_string(),
        Type::Tuple(_) => "Tuple".to_string(),
    }
}

/// The fields of an object type, also inside collections (`List of Object`), for a nested schema section.
fn object_fields(ty: &Type) -> Option<&BTreeMap<String, Type>> {
    match ty {
        Type::Object(fields) => Some(fields),
        Type::List(element) | Type::Set(element) | Type::Map(element) => object_fields(element),
        _ => None,
    }
}

/// Terraform's type syntax, for function signatures: `string`, `list(string)`, `object({a = string})`.
fn hcl_type(ty: &Type) -> String {
    match ty {
        Type::Bool => "bool".to_string(),
        Type::Number => "number".to_string(),
        Type::String => "string".to_string(),
        Type::Dynamic => "any".to_string(),
        Type::List(element) => format!("list({})", hcl_type(element)),
        Type::Set(element) => format!("set({})", hcl_type(element)),
        Type::Map(element) => format!("map({})", hcl_type(element)),
        Type::Object(fields) => {
            let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{k} = {}", hcl_type(v))).collect();
            format!("object({{{}}})", fields.join(", "))
        }
        Type::Tuple(elements) => {
            let elements: Vec<String> = elements.iter().map(hcl_type).collect();
            format!("tuple([{}])", elements.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_follow_tfplugindocs() {
        assert_eq!(type_label(&Type::Bool), "Boolean");
        assert_eq!(type_label(&Type::list(Type::String)), "List of String");
        assert_eq!(
            type_label(&Type::map(Type::object([("a", Type::Number)]))),
            "Map of Object"
        );
        assert_eq!(
            hcl_type(&Type::list(Type::object([("a", Type::Number)]))),
            "list(object({a = number}))"
        );
    }

    #[test]
    fn schema_lists_groups_in_declaration_order_with_nested_sections() {
        let inner = Block::new("Inner.").attribute(Attribute::string("z").required().describe("Zed."));
        let block = Block::new("Top.")
            .attribute(Attribute::string("b").optional().describe("Bee."))
            .attribute(Attribute::string("a").required().describe("Ay.").requires_replace())
            .attribute(
                Attribute::string("secret")
                    .optional()
                    .sensitive()
                    .deprecated("Use `b`."),
            )
            .attribute(Attribute::string("id").computed().describe("ID."))
            .attribute(
                Attribute::new("objects", Type::list(Type::object([("x", Type::String)])))
                    .computed()
                    .describe("Objects."),
            )
            .block(NestedBlock::list("item", inner).max_items(3))
            .timeouts(
                &[hyperpod_protocol::deadline::Operation::Create],
                std::time::Duration::from_mins(5),
            );
        let markdown = schema_markdown(&block);
        let expected = "\
<!-- schema generated by xtask/src/docs.rs -->
## Schema

### Required

- `a` (String) Ay. Changing it replaces the resource.

### Optional

- `b` (String) Bee.
- `secret` (String, Sensitive, Deprecated) **Deprecated:** Use `b`.
- `item` (Block List, Max: 3) Inner. (see [below for nested schema](#nestedblock--item))
- `timeouts` (Block, Optional) How long each operation may take, its calls and its waits together. At the deadline a wait ends, a call is no longer sent, and a call answered later fails; the apply then fails with \"Operation timed out\", and what the operation had written is kept in state (tainted, replaced next) or adopted by the next apply. (see [below for nested schema](#nestedblock--timeouts))

### Read-Only

- `id` (String) ID.
- `objects` (List of Object) Objects. (see [below for nested schema](#nestedobjatt--objects))

<a id=\"nestedblock--item\"></a>
### Nested Schema for `item`

Required:

- `z` (String) Zed.

<a id=\"nestedblock--timeouts\"></a>
### Nested Schema for `timeouts`

Optional:

- `create` (String) Time allowed for create. Defaults to `5m`. A duration such as `30s`, `10m` or `1h30m`.

<a id=\"nestedobjatt--objects\"></a>
### Nested Schema for `objects`

Read-Only:

- `x` (String)
";
        assert_eq!(markdown, expected);
    }

    #[test]
    fn the_governance_guide_shows_every_rule_with_the_engines_own_diagnostics() {
        let guide = render_governance_guide();
        assert!(guide.contains("page_title: \"Governance rules\"\nsubcategory: \"Guides\"\n"));
        for rule in RuleId::ALL {
            let anchor = format!(
                "<a id=\"{}\"></a>\n### {}\n\n{}.\n",
                rule_anchor(*rule),
                rule.id(),
                rule.title()
            );
            assert!(guide.contains(&anchor), "no section for {}", rule.id());
            assert!(guide.contains(&format!("| [{}](#{}) |", rule.id(), rule_anchor(*rule))));
            for finding in examples::failing(*rule).findings() {
                let diagnostic = terraform_provider_hyperpod::findings::finding_diagnostic(finding, false);
                let shown = format!(
                    "```text\n{}\n```\n\nAttribute path: `{}`.\n",
                    terraform_diagnostic(&diagnostic),
                    diagnostic.path
                );
                assert!(guide.contains(&shown), "{}: {shown}", rule.id());
            }
        }
        assert!(
            guide.contains("\nWarning: [LIF-1] The contract is not past its review date\n\nreview.last_reviewed: ")
        );
        // An error-severity finding is a refusal at plan: a warning that says apply refuses the change.
        assert!(guide.contains("\nWarning: [WKL-8] "));
        assert!(guide.contains("(apply refuses this change)\n"));
        assert!(!guide.contains("\nError: [WKL-8] "));
    }

    #[test]
    fn the_exception_example_matches_the_contract_schema() {
        let provider = HyperpodProvider::default();
        let resources = provider.resources();
        let contract = resources
            .iter()
            .find(|resource| resource.type_name() == "hyperpod_connection_contract")
            .expect("the connection contract resource");
        let schema = &contract
            .schema()
            .block
            .blocks
            .iter()
            .find(|nested| nested.name == "exception")
            .expect("an exception block")
            .block;
        let block = EXCEPTION_EXAMPLE
            .split_once("exception {")
            .and_then(|(_, rest)| rest.split_once('}'))
            .expect("an exception block in the example")
            .0;
        let shown: Vec<(&str, &str)> = block
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(name, value)| (name.trim(), value.trim().trim_matches('"')))
            .collect();
        let names: Vec<&str> = shown.iter().map(|(name, _)| *name).collect();
        let declared: Vec<&str> = schema.attributes.iter().map(|attribute| attribute.name).collect();
        assert_eq!(names, declared);
        let rule = shown.iter().find(|(name, _)| *name == "rule").unwrap().1;
        assert!(rule.parse::<RuleId>().is_ok(), "{rule}");
    }

    #[test]
    fn the_governance_guide_is_generated_and_other_guides_are_hand_written() {
        let root = tempfile::tempdir().expect("tempdir");
        let guides = root.path().join("docs/guides");
        fs::create_dir_all(&guides).unwrap();
        fs::write(guides.join("governance-rules.md"), "old").unwrap();
        fs::write(guides.join("migrating.md"), "hand-written").unwrap();
        fs::write(root.path().join("docs/sandbox.md"), "hand-written").unwrap();
        let found = existing(root.path()).unwrap();
        assert_eq!(
            found.into_iter().collect::<Vec<_>>(),
            [PathBuf::from("docs/guides/governance-rules.md")]
        );
        let index = governance_section();
        assert!(index.starts_with("## Governance rules\n"));
        assert!(index.contains(
            "[Governance rules](https://registry.terraform.io/providers/hyperpod-governance/hyperpod/latest/docs/guides/governance-rules)"
        ));
    }

    #[test]
    fn page_names_drop_the_provider_prefix() {
        assert_eq!(
            page_path("resources", "hyperpod", "hyperpod_scheduling_policy"),
            Path::new("docs/resources/scheduling_policy.md")
        );
    }
}
