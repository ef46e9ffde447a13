//! IPv4/IPv6 CIDR blocks and containment, for CLU-5 (the EKS endpoint's public CIDRs must lie inside the
//! contract's approved ones) and CON-1 (approved CIDRs are well-formed).

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use ipnet::IpNet;

/// An IPv4 or IPv6 network (`ipnet` does the arithmetic); always its network address, never a host inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr(IpNet);

impl Cidr {
    /// The same as `text.parse()`.
    pub fn parse(text: &str) -> Result<Self, String> {
        text.parse()
    }

    /// Whether every address of `other` is in `self`. Different families never contain each other.
    pub fn contains(&self, other: &Cidr) -> bool {
        self.0.contains(&other.0)
    }
}

impl FromStr for Cidr {
    type Err = String;
    /// `10.0.0.0/8`, `2001:db8::/32`; a bare address is a single host (/32 or /128). Host bits set below the
    /// prefix are refused, as EKS refuses them, so a typo does not silently widen or move a network.
    fn from_str(text: &str) -> Result<Self, String> {
        let invalid = || format!("{text:?} is not a CIDR block such as \"203.0.113.0/24\" or \"2001:db8::/32\"");
        let trimmed = text.trim();
        let net = match trimmed.split_once('/') {
            // `ipnet` reads the prefix with `u8::from_str`, which takes a leading `+`: only digits are a prefix.
            Some((_, prefix)) if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(invalid());
            }
            Some(_) => IpNet::from_str(trimmed).map_err(|_| invalid())?,
            None => IpNet::from(IpAddr::from_str(trimmed).map_err(|_| invalid())?),
        };
        if net.trunc() != net {
            return Err(format!(
                "{text:?} has host bits set below the /{} prefix; write the network address",
                net.prefix_len()
            ));
        }
        Ok(Self(net))
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cidr(text: &str) -> Cidr {
        text.parse().unwrap()
    }

    #[test]
    fn parses_ipv4_ipv6_and_single_hosts() {
        assert_eq!(cidr("10.0.0.0/8").to_string(), "10.0.0.0/8");
        assert_eq!(cidr("203.0.113.7").to_string(), "203.0.113.7/32");
        assert_eq!(cidr("2001:db8::/32").to_string(), "2001:db8::/32");
        assert_eq!(cidr("::1").to_string(), "::1/128");
        assert_eq!(cidr("0.0.0.0/0").to_string(), "0.0.0.0/0");
        for bad in [
            "10.0.0.0/33",
            "10.0.0/8",
            "10.0.0.0/",
            "10.0.0.0/+8",
            "2001:db8::/129",
            "x",
            "",
            "10.0.0.1/8",
        ] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
    }

    #[test]
    fn containment_follows_prefixes_and_families() {
        assert!(cidr("10.0.0.0/8").contains(&cidr("10.1.2.0/24")));
        assert!(cidr("10.0.0.0/8").contains(&cidr("10.0.0.0/8")));
        assert!(!cidr("10.1.2.0/24").contains(&cidr("10.0.0.0/8")));
        assert!(!cidr("10.0.0.0/8").contains(&cidr("11.0.0.0/24")));
        assert!(cidr("0.0.0.0/0").contains(&cidr("198.51.100.0/24")));
        assert!(!cidr("198.51.100.0/24").contains(&cidr("0.0.0.0/0")));
        assert!(cidr("2001:db8::/32").contains(&cidr("2001:db8:1::/48")));
        assert!(!cidr("2001:db8::/32").contains(&cidr("2001:db9::/48")));
        assert!(cidr("::/0").contains(&cidr("2001:db8::1")));
        // ::/0 is not 0.0.0.0/0: families never mix.
        assert!(!cidr("::/0").contains(&cidr("10.0.0.0/8")));
        assert!(!cidr("0.0.0.0/0").contains(&cidr("::1")));
        assert!(cidr("203.0.113.0/25").contains(&cidr("203.0.113.127")));
        assert!(!cidr("203.0.113.0/25").contains(&cidr("203.0.113.128")));
    }
}
