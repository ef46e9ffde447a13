//! SageMaker's names for how a compute quota shares idle capacity, preempts and is switched on
//! (`ResourceSharingConfig.Strategy`, `PreemptTeamTasks`, `ActivationState`): one type each, used by the
//! configuration, the engine's rules and the SageMaker client alike, so no decision compares their names.
//! Each has its API names in one table; `parse` is the only way in from a string.

/// One enum and the name of each variant, in one table (`ALL`, `NAMES`, `parse`, `as_str`, `Display`): for any set of
/// names a configuration, an API or a stored record spells, so no decision compares a name.
#[macro_export]
macro_rules! api_names {
    ($(#[$meta:meta])* $name:ident { $($(#[$variant_meta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$variant_meta])* $variant),+
        }

        impl $name {
            /// Every variant with its API name.
            pub const ALL: &'static [($name, &'static str)] = &[$(($name::$variant, $text)),+];
            /// The API names, for a validator's "one of".
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The variant of an API name; `None` for a name this version does not know.
            pub fn parse(name: &str) -> Option<Self> {
                Self::ALL.iter().find(|(_, text)| *text == name).map(|(value, _)| *value)
            }

            /// The API name, as SageMaker sends and takes it and as state records it.
            pub fn as_str(self) -> &'static str {
                Self::ALL.iter().find(|(value, _)| *value == self).map_or("", |(_, text)| text)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

api_names! {
    /// How a team's quota shares: lends its idle capacity, borrows others', both, or neither.
    SharingStrategy {
        Lend = "Lend",
        DontLend = "DontLend",
        /// SageMaker's default.
        LendAndBorrow = "LendAndBorrow",
    }
}

api_names! {
    /// Whether the team's tasks preempt lower-priority tasks of its own team.
    Preemption {
        Never = "Never",
        /// SageMaker's default.
        LowerPriority = "LowerPriority",
    }
}

api_names! {
    /// Whether a compute quota is in force.
    Activation {
        /// SageMaker's default.
        Enabled = "Enabled",
        Disabled = "Disabled",
    }
}

impl SharingStrategy {
    /// A strategy's name; anything else (and unset) is SageMaker's default, LendAndBorrow.
    pub fn from_name(name: &str) -> Self {
        Self::parse(name).unwrap_or(SharingStrategy::LendAndBorrow)
    }

    pub fn lends(self) -> bool {
        matches!(self, SharingStrategy::Lend | SharingStrategy::LendAndBorrow)
    }

    /// Only LendAndBorrow borrows: a borrow limit means something under it alone.
    pub fn borrows(self) -> bool {
        self == SharingStrategy::LendAndBorrow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_variant() {
        for (value, name) in SharingStrategy::ALL {
            assert_eq!(SharingStrategy::parse(name), Some(*value));
            assert_eq!(value.to_string(), *name);
        }
        for (value, name) in Preemption::ALL {
            assert_eq!(Preemption::parse(name), Some(*value));
        }
        for (value, name) in Activation::ALL {
            assert_eq!(Activation::parse(name), Some(*value));
        }
        assert_eq!(SharingStrategy::parse("lend"), None);
        assert_eq!(SharingStrategy::from_name("Sometimes"), SharingStrategy::LendAndBorrow);
        assert_eq!(Preemption::NAMES, ["Never", "LowerPriority"]);
    }
}
