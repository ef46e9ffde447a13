//! The live compute quota put into state where the user manages it, so a change made in the console shows as drift;
//! fields the user left to SageMaker's defaults stay null.

use super::super::schema::TenantModel as M;
use crate::aws::compute_quota::{ComputeQuota, QuotaShare};
use crate::governance::Unit;
use crate::protocol::model::Field;
use crate::protocol::value::{Number, Value};
use crate::resources::quota_entry::QuotaEntry;

/// Puts the live quota's settings into state where the user manages them, so a change made in the console shows
/// as drift. Fields the user left to SageMaker's defaults stay null.
pub fn flatten_quota(state: &mut Value, quota: &ComputeQuota) {
    let prior = state.clone();
    if let Some(preempt) = quota.preempt_team_tasks {
        M::PREEMPT_TEAM_TASKS.set(state, &Field::Known(preempt.as_str().to_string()));
    }
    if let Some(activation) = quota.activation_state {
        M::ACTIVATION_STATE.set(state, &Field::Known(activation.as_str().to_string()));
    }
    let weight = quota.fair_share_weight.unwrap_or(0);
    let weight_set = M::FAIR_SHARE_WEIGHT.get(&prior).is_ok_and(|w| w != Field::Null);
    if weight_set || weight != 0 {
        M::FAIR_SHARE_WEIGHT.set(state, &Field::Known(i64::from(weight)));
    }
    if let Some(mut sharing) = M::SHARING.known(&prior) {
        if let Some(strategy) = quota.sharing_strategy {
            sharing.strategy = Field::Known(strategy.as_str().to_string());
        }
        // SageMaker fills in a default limit (50) when none is written: only a limit the user set is compared.
        if sharing.borrow_limit != Field::Null {
            sharing.borrow_limit = quota.borrow_limit.map(|l| Number::from_i64(i64::from(l))).into();
        }
        // Absolute limits are the team's whether written or set in the console: always shown (null stays null
        // while there are none, so a tenant that never set them shows no change).
        let limits = &quota.absolute_borrow_limits;
        if !limits.is_empty() || sharing.absolute_borrow_limit != Field::Null {
            let written = sharing.absolute_borrow_limit.as_known().cloned().unwrap_or_default();
            sharing.absolute_borrow_limit = Field::Known(flatten_entries(limits, &written, true));
        }
        M::SHARING.set(state, &Field::Known(sharing));
    }
    let entries = M::QUOTA.known(&prior).unwrap_or_default();
    M::QUOTA.set(state, &Field::Known(flatten_entries(&quota.resources, &entries, false)));
}

/// Live entries as the state shows them: the units the user wrote, always the partition, and when the entries no
/// longer line up with what was written, the count (a quota's entries: SageMaker fills the other amounts in) or
/// every unit (`every_unit`: absolute borrow limits, which nothing fills in).
fn flatten_entries(live_entries: &[QuotaShare], written: &[QuotaEntry], every_unit: bool) -> Vec<QuotaEntry> {
    let same_shape = written.len() == live_entries.len()
        && (written.iter().zip(live_entries))
            .all(|(entry, live)| entry.instance_type.as_known() == Some(&live.instance_type));
    live_entries
        .iter()
        .enumerate()
        .map(|(index, live)| {
            let written = if same_shape { written.get(index) } else { None };
            let live = QuotaEntry::from(live);
            let bare = QuotaEntry {
                instance_type: live.instance_type.clone(),
                ..QuotaEntry::default()
            };
            Unit::ALL.into_iter().fold(bare, |shown, unit| {
                let written_unit = written.filter(|entry| entry.unit(unit) != Field::Null);
                let keep = written_unit.is_some() || (every_unit && !same_shape);
                let show = unit.kept_from_live() || keep || (!unit.filled_in() && !same_shape);
                match written_unit {
                    _ if !show => shown,
                    Some(entry) if unit.is_float() => shown.with_unit_of(unit, entry),
                    _ => shown.with_unit_of(unit, &live),
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{elements, int, nested, object, string, text};

    fn quota() -> ComputeQuota {
        ComputeQuota {
            team_name: "research".into(),
            resources: vec![QuotaShare {
                instance_type: "ml.p5.48xlarge".into(),
                count: Some(3),
                accelerators: Some(24),
                vcpu: Some(192.0),
                memory_gib: Some(2048.0),
                ..QuotaShare::default()
            }],
            sharing_strategy: Some(crate::quota_settings::SharingStrategy::LendAndBorrow),
            borrow_limit: Some(50),
            preempt_team_tasks: Some(crate::quota_settings::Preemption::LowerPriority),
            fair_share_weight: Some(0),
            activation_state: Some(crate::quota_settings::Activation::Enabled),
            ..ComputeQuota::default()
        }
    }

    fn state() -> Value {
        object([
            (
                "quota",
                Value::List(vec![object([
                    ("instance_type", text("ml.p5.48xlarge")),
                    ("count", int(2)),
                    ("accelerators", Value::Null),
                    ("vcpu", Value::Null),
                    ("memory_gib", Value::Null),
                    ("accelerator_partition", Value::Null),
                ])]),
            ),
            (
                "sharing",
                object([
                    ("strategy", text("LendAndBorrow")),
                    ("borrow_limit", Value::Null),
                    ("absolute_borrow_limit", Value::Null),
                ]),
            ),
            ("preempt_team_tasks", text("Never")),
            ("fair_share_weight", Value::Null),
            ("activation_state", text("Enabled")),
        ])
    }

    #[test]
    fn live_changes_to_what_the_user_manages_show_and_service_defaults_do_not() {
        let mut state = state();
        flatten_quota(&mut state, &quota());
        let entry = &elements(&state, "quota")[0];
        assert_eq!(entry.get_attr("count"), Some(&int(3)), "a changed count is drift");
        assert_eq!(
            entry.get_attr("accelerators"),
            Some(&Value::Null),
            "filled in by SageMaker, not written"
        );
        assert_eq!(entry.get_attr("vcpu"), Some(&Value::Null));
        assert_eq!(string(&state, "preempt_team_tasks").as_deref(), Some("LowerPriority"));
        assert_eq!(
            state.get_attr("fair_share_weight"),
            Some(&Value::Null),
            "the default weight 0 stays unset"
        );
        let sharing = nested(&state, "sharing").cloned().unwrap_or(Value::Null);
        assert_eq!(
            sharing.get_attr("borrow_limit"),
            Some(&Value::Null),
            "the default borrow limit stays unset"
        );
        assert_eq!(
            sharing.get_attr("absolute_borrow_limit"),
            Some(&Value::Null),
            "none, none shown"
        );
    }

    #[test]
    fn partitions_and_absolute_limits_set_in_the_console_show_in_state() {
        use crate::aws::compute_quota::Partition;
        let mut live = quota();
        live.resources[0].accelerator_partition = Some(Partition {
            profile: "mig-1g.10gb".into(),
            count: 14,
        });
        live.absolute_borrow_limits = vec![QuotaShare {
            instance_type: "ml.p5.48xlarge".into(),
            accelerators: Some(16),
            vcpu: Some(96.5),
            ..QuotaShare::default()
        }];
        let mut state = state();
        flatten_quota(&mut state, &live);
        let entry = &elements(&state, "quota")[0];
        let partition = nested(entry, "accelerator_partition").cloned().unwrap_or(Value::Null);
        assert_eq!(string(&partition, "type").as_deref(), Some("mig-1g.10gb"));
        assert_eq!(partition.get_attr("count"), Some(&int(14)));
        let sharing = nested(&state, "sharing").cloned().unwrap_or(Value::Null);
        let limits = elements(&sharing, "absolute_borrow_limit");
        assert_eq!(limits.len(), 1, "{sharing:?}");
        assert_eq!(
            limits[0].get_attr("accelerators"),
            Some(&int(16)),
            "every unit of a limit not written"
        );
        assert_eq!(
            limits[0].get_attr("vcpu").map(hyperpod_protocol::value::Value::is_null),
            Some(false)
        );
    }
}
