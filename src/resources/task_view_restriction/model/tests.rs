//! The restriction's model: what it renders and records, from a hand-made `RestrictionConfig`.

use super::config::default_group;
use super::*;

use crate::component::Component;

#[test]
fn the_contract_mark_component_names_the_contract_tag() {
    assert_eq!(contract_mark().key(), format!("entry_tag/{CONTRACT_TAG}"));
}

fn config(mode: RestrictionMode) -> RestrictionConfig {
    RestrictionConfig {
        project_role_arn: "arn:aws:iam::123456789012:role/datazone_usr_role_research".into(),
        namespaces: vec!["hyperpod-ns-research".into()],
        mode,
        access_policies: vec!["AmazonSagemakerHyperpodTrainingPolicy".into()],
        space_templates: true,
        space_template_namespace: "jupyter-k8s-shared".into(),
        user_cluster_policy: true,
        kubernetes_group: default_group("arn:aws:iam::123456789012:role/datazone_usr_role_research"),
        slurm_os_user: None,
    }
}

#[test]
fn access_policy_mode_scopes_studio_policies_to_the_namespaces_and_probes_to_the_cluster() {
    let associations = config(RestrictionMode::AccessPolicy).associations("aws");
    let scopes: Vec<(String, String)> = associations
        .iter()
        .map(|a| (role_name(&a.policy_arn).to_string(), a.scope()))
        .collect();
    assert_eq!(
        scopes,
        [
            (
                "AmazonSagemakerHyperpodTrainingPolicy".to_string(),
                "namespace:hyperpod-ns-research".to_string()
            ),
            (
                "AmazonSagemakerHyperpodSpaceTemplatePolicy".to_string(),
                "namespace:jupyter-k8s-shared".to_string()
            ),
            (
                "AmazonSagemakerHyperpodUserClusterPolicy".to_string(),
                "cluster".to_string()
            ),
        ]
    );
    assert!(config(RestrictionMode::AccessPolicy).manifests().is_empty());
    // AWS's add-user page: the space policies alone, the templates where the cluster keeps them.
    let spaces_only = RestrictionConfig {
        access_policies: vec!["AmazonSagemakerHyperpodSpacePolicy".into()],
        space_template_namespace: "jupyter-k8s-system".into(),
        user_cluster_policy: false,
        ..config(RestrictionMode::AccessPolicy)
    };
    let scopes: Vec<(String, String)> = spaces_only
        .associations("aws")
        .iter()
        .map(|a| (role_name(&a.policy_arn).to_string(), a.scope()))
        .collect();
    assert_eq!(
        scopes,
        [
            (
                "AmazonSagemakerHyperpodSpacePolicy".to_string(),
                "namespace:hyperpod-ns-research".to_string()
            ),
            (
                "AmazonSagemakerHyperpodSpaceTemplatePolicy".to_string(),
                "namespace:jupyter-k8s-system".to_string()
            ),
        ]
    );
}

#[test]
fn rbac_mode_renders_per_namespace_viewers_and_one_probe_grant() {
    let manifests = config(RestrictionMode::Rbac).manifests();
    let keys: Vec<String> = manifests.iter().map(|object| object_component(object).key()).collect();
    assert_eq!(
        keys,
        [
            "kubernetes/Role/hyperpod-ns-research/hyperpod-studio-viewer",
            "kubernetes/RoleBinding/hyperpod-ns-research/hyperpod-studio-viewer",
            "kubernetes/ClusterRole/-/hyperpod-studio-probes-hyperpod-studio-datazone-usr-role-research",
            "kubernetes/ClusterRoleBinding/-/hyperpod-studio-probes-hyperpod-studio-datazone-usr-role-research",
        ]
    );
    assert_eq!(
        manifests[1].body["subjects"][0]["name"],
        "hyperpod-studio-datazone-usr-role-research"
    );
    assert_eq!(
        manifests[2].body["rules"][1]["resources"][0],
        "selfsubjectaccessreviews"
    );
    assert!(config(RestrictionMode::Rbac).associations("aws").is_empty());
    // The key alone finds each object again (apply's stale removal, refresh, destroy); the value is its digest.
    for object in &manifests {
        assert_eq!(component_path(&object_component(object)), Some(object.path()));
        let value = object_value(&object.body);
        assert!(
            value.len() == 8 && value.chars().all(|c| c.is_ascii_hexdigit()),
            "{value}"
        );
    }
    assert_eq!(
        component_path(&Component::AccessPolicy("AmazonEKSViewPolicy".into())),
        None
    );
}

#[test]
fn an_adopted_entry_is_not_a_component_but_carries_the_contract_s_mark() {
    let created = components(&config(RestrictionMode::AccessPolicy), "aws", true, false, "c1");
    assert!(created.contains(&Component::ProjectAccessEntry));
    assert!(
        !created.contains(&contract_mark()),
        "a created entry is tagged at create"
    );
    let adopted = components(&config(RestrictionMode::AccessPolicy), "aws", true, true, "c1");
    assert!(!adopted.contains(&Component::ProjectAccessEntry));
    assert_eq!(adopted.get(&contract_mark()).map(String::as_str), Some("c1"));
    assert_eq!(adopted.stored().len(), created.stored().len());
}

/// A hand-written `contract` whose lifecycle state is not one is refused at `contract.lifecycle_state`, as tenants
/// and bindings refuse it, not with the restriction's generic "not a contract's governance" at `contract`.
#[test]
fn a_lifecycle_state_that_is_not_one_is_refused_at_its_path() {
    use crate::protocol::model::Field;
    use crate::resources::connection_contract::governance_value;
    use crate::resources::governance_objects::ContractGovernance;
    let mut contract = governance_value(&crate::governance::examples::contract(), "current", &[]);
    ContractGovernance::LIFECYCLE_STATE.set(&mut contract, &Field::Known("revokd".to_string()));
    let restriction = super::super::schema::RestrictionModel {
        contract: crate::resources::governance_objects::ContractArgument { contract },
        ..Default::default()
    };
    let problem = contract_problem(&restriction).expect("refused");
    assert_eq!(problem.path.to_string(), "contract.lifecycle_state");
    assert_eq!(problem.severity, crate::protocol::diagnostics::Severity::Error);
}

/// A grant known only at apply (`mode`, an `access_policies` element) is judged as unset and planned unknown; the
/// other arguments are never touched.
#[test]
fn a_grant_known_only_at_apply_is_judged_as_unset() {
    use super::super::schema::RestrictionModel;
    use crate::protocol::model::Field;
    let known = RestrictionModel {
        mode: Field::Known("rbac".to_string()),
        access_policies: Field::Known(vec![Field::Known("AmazonSagemakerHyperpodTrainingPolicy".to_string())]),
        kubernetes_group: Field::Unknown,
        ..RestrictionModel::default()
    };
    assert!(super::grants_known(&known), "an unknown group is not a grant");
    let mode_later = RestrictionModel {
        mode: Field::Unknown,
        ..known.clone()
    };
    assert!(!super::grants_known(&mode_later));
    assert_eq!(super::without_unknown_grants(&mode_later).mode, Field::Null);
    let element_later = RestrictionModel {
        access_policies: Field::Known(vec![Field::Unknown]),
        ..known.clone()
    };
    assert!(!super::grants_known(&element_later));
    let judged = super::without_unknown_grants(&element_later);
    assert_eq!(judged.access_policies, Field::Null);
    assert_eq!(judged.kubernetes_group, Field::Unknown, "not a grant: left as it is");
}
