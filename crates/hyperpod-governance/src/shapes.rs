//! What one instance of a HyperPod instance type holds: accelerators, vCPU and memory. WKL-3 converts every quota
//! entry into these units to sum teams that were given capacity in different units; SageMaker fills a quota given in
//! one amount by the same ratios. The figures are the public EC2 specifications of the instance behind each `ml.`
//! type. An instance type missing here is never counted as zero: WKL-3 says it cannot resolve the shape.

/// One instance's resources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InstanceShape {
    pub accelerators: i64,
    pub vcpu: f64,
    pub memory_gib: f64,
}

/// (instance type, accelerators, vCPU, memory GiB); sorted by name for the binary search.
const SHAPES: &[(&str, i64, f64, f64)] = &[
    ("ml.c5.12xlarge", 0, 48.0, 96.0),
    ("ml.c5.18xlarge", 0, 72.0, 144.0),
    ("ml.c5.24xlarge", 0, 96.0, 192.0),
    ("ml.c5.2xlarge", 0, 8.0, 16.0),
    ("ml.c5.4xlarge", 0, 16.0, 32.0),
    ("ml.c5.9xlarge", 0, 36.0, 72.0),
    ("ml.c5.large", 0, 2.0, 4.0),
    ("ml.c5.xlarge", 0, 4.0, 8.0),
    ("ml.g5.12xlarge", 4, 48.0, 192.0),
    ("ml.g5.16xlarge", 1, 64.0, 256.0),
    ("ml.g5.24xlarge", 4, 96.0, 384.0),
    ("ml.g5.2xlarge", 1, 8.0, 32.0),
    ("ml.g5.48xlarge", 8, 192.0, 768.0),
    ("ml.g5.4xlarge", 1, 16.0, 64.0),
    ("ml.g5.8xlarge", 1, 32.0, 128.0),
    ("ml.g5.xlarge", 1, 4.0, 16.0),
    ("ml.g6.12xlarge", 4, 48.0, 192.0),
    ("ml.g6.16xlarge", 1, 64.0, 256.0),
    ("ml.g6.24xlarge", 4, 96.0, 384.0),
    ("ml.g6.2xlarge", 1, 8.0, 32.0),
    ("ml.g6.48xlarge", 8, 192.0, 768.0),
    ("ml.g6.4xlarge", 1, 16.0, 64.0),
    ("ml.g6.8xlarge", 1, 32.0, 128.0),
    ("ml.g6.xlarge", 1, 4.0, 16.0),
    ("ml.g6e.12xlarge", 4, 48.0, 384.0),
    ("ml.g6e.16xlarge", 1, 64.0, 512.0),
    ("ml.g6e.24xlarge", 4, 96.0, 768.0),
    ("ml.g6e.2xlarge", 1, 8.0, 64.0),
    ("ml.g6e.48xlarge", 8, 192.0, 1536.0),
    ("ml.g6e.4xlarge", 1, 16.0, 128.0),
    ("ml.g6e.8xlarge", 1, 32.0, 256.0),
    ("ml.g6e.xlarge", 1, 4.0, 32.0),
    ("ml.m5.12xlarge", 0, 48.0, 192.0),
    ("ml.m5.16xlarge", 0, 64.0, 256.0),
    ("ml.m5.24xlarge", 0, 96.0, 384.0),
    ("ml.m5.2xlarge", 0, 8.0, 32.0),
    ("ml.m5.4xlarge", 0, 16.0, 64.0),
    ("ml.m5.8xlarge", 0, 32.0, 128.0),
    ("ml.m5.large", 0, 2.0, 8.0),
    ("ml.m5.xlarge", 0, 4.0, 16.0),
    ("ml.p4d.24xlarge", 8, 96.0, 1152.0),
    ("ml.p4de.24xlarge", 8, 96.0, 1152.0),
    ("ml.p5.48xlarge", 8, 192.0, 2048.0),
    ("ml.p5e.48xlarge", 8, 192.0, 2048.0),
    ("ml.p5en.48xlarge", 8, 192.0, 2048.0),
    ("ml.p6-b200.48xlarge", 8, 192.0, 2048.0),
    ("ml.t3.2xlarge", 0, 8.0, 32.0),
    ("ml.t3.large", 0, 2.0, 8.0),
    ("ml.t3.medium", 0, 2.0, 4.0),
    ("ml.t3.xlarge", 0, 4.0, 16.0),
    ("ml.trn1.32xlarge", 16, 128.0, 512.0),
    ("ml.trn1n.32xlarge", 16, 128.0, 512.0),
    ("ml.trn2.48xlarge", 16, 192.0, 2048.0),
];

/// The shape of `instance_type`, or `None` when this provider does not know it.
pub fn shape(instance_type: &str) -> Option<InstanceShape> {
    SHAPES
        .binary_search_by(|(name, ..)| (*name).cmp(instance_type))
        .ok()
        .map(|index| {
            let (_, accelerators, vcpu, memory_gib) = SHAPES[index];
            InstanceShape {
                accelerators,
                vcpu,
                memory_gib,
            }
        })
}

/// The MIG profiles of one GPU model and how many slices of each one GPU yields when all of it is split into that
/// profile (NVIDIA's MIG user guide, "Supported MIG Profiles").
const A100_40GB: &[(&str, i64)] = &[
    ("mig-1g.5gb", 7),
    ("mig-2g.10gb", 3),
    ("mig-3g.20gb", 2),
    ("mig-4g.20gb", 1),
    ("mig-7g.40gb", 1),
];
const A100_80GB: &[(&str, i64)] = &[
    ("mig-1g.10gb", 7),
    ("mig-2g.20gb", 3),
    ("mig-3g.40gb", 2),
    ("mig-4g.40gb", 1),
    ("mig-7g.80gb", 1),
];
const H100_80GB: &[(&str, i64)] = &[
    ("mig-1g.10gb", 7),
    ("mig-1g.20gb", 4),
    ("mig-2g.20gb", 3),
    ("mig-3g.40gb", 2),
    ("mig-4g.40gb", 1),
    ("mig-7g.80gb", 1),
];
const H200_141GB: &[(&str, i64)] = &[
    ("mig-1g.18gb", 7),
    ("mig-1g.35gb", 4),
    ("mig-2g.35gb", 3),
    ("mig-3g.71gb", 2),
    ("mig-4g.71gb", 1),
    ("mig-7g.141gb", 1),
];
const B200_180GB: &[(&str, i64)] = &[
    ("mig-1g.23gb", 7),
    ("mig-1g.45gb", 4),
    ("mig-2g.45gb", 3),
    ("mig-3g.90gb", 2),
    ("mig-4g.90gb", 1),
    ("mig-7g.180gb", 1),
];

/// A GPU model's MIG profiles: (profile, slices per GPU).
type Profiles = &'static [(&'static str, i64)];

/// The instance types whose GPUs HyperPod can partition, with their GPU model's profiles.
const PARTITIONABLE: &[(&str, &str, Profiles)] = &[
    ("ml.p4d.24xlarge", "A100 40GB", A100_40GB),
    ("ml.p4de.24xlarge", "A100 80GB", A100_80GB),
    ("ml.p5.48xlarge", "H100 80GB", H100_80GB),
    ("ml.p5e.48xlarge", "H200 141GB", H200_141GB),
    ("ml.p5en.48xlarge", "H200 141GB", H200_141GB),
    ("ml.p6-b200.48xlarge", "B200 180GB", B200_180GB),
];

/// The GPU of `instance_type` and its MIG profiles, or `None` when its accelerators cannot be partitioned (or this
/// provider does not know that they can).
pub fn mig_profiles(instance_type: &str) -> Option<(&'static str, Profiles)> {
    PARTITIONABLE
        .iter()
        .find(|(name, ..)| *name == instance_type)
        .map(|(_, gpu, profiles)| (*gpu, *profiles))
}

/// Slices of `profile` one accelerator of `instance_type` yields, split uniformly (`all-<profile>`).
pub fn slices_per_accelerator(instance_type: &str, profile: &str) -> Option<i64> {
    mig_profiles(instance_type)?
        .1
        .iter()
        .find(|(name, _)| *name == profile)
        .map(|(_, slices)| *slices)
}

/// A MIG layout label value (`nvidia.com/mig.config`): `all-<x>` splits every GPU into profile `mig-<x>`; another
/// name is a custom layout whose slices this provider cannot count.
pub fn uniform_profile(layout: &str) -> Option<String> {
    layout.strip_prefix("all-").map(|profile| format!("mig-{profile}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mig_profiles_follow_the_gpu_model() {
        assert_eq!(slices_per_accelerator("ml.p4d.24xlarge", "mig-1g.5gb"), Some(7));
        assert_eq!(slices_per_accelerator("ml.p5.48xlarge", "mig-3g.40gb"), Some(2));
        assert_eq!(
            slices_per_accelerator("ml.p5.48xlarge", "mig-1g.5gb"),
            None,
            "an A100 40GB profile"
        );
        assert_eq!(
            slices_per_accelerator("ml.g5.8xlarge", "mig-1g.5gb"),
            None,
            "A10G GPUs have no MIG"
        );
        assert_eq!(uniform_profile("all-1g.5gb").as_deref(), Some("mig-1g.5gb"));
        assert_eq!(uniform_profile("custom-mixed"), None);
        for (name, ..) in PARTITIONABLE {
            assert!(shape(name).is_some_and(|s| s.accelerators > 0), "{name} has a shape");
        }
    }

    #[test]
    fn the_table_is_sorted_so_every_entry_is_found() {
        assert!(SHAPES.windows(2).all(|pair| pair[0].0 < pair[1].0));
        for (name, accelerators, ..) in SHAPES {
            assert_eq!(shape(name).map(|s| s.accelerators), Some(*accelerators), "{name}");
        }
        assert_eq!(shape("ml.p5.48xlarge").map(|s| s.memory_gib), Some(2048.0));
        assert_eq!(shape("ml.x9.48xlarge"), None);
    }
}
