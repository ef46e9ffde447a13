//! IPv4/IPv6 CIDR blocks and containment, for CLU-5 (the EKS endpoint's public CIDRs must lie inside the
//! contract's approved ones) and CON-1 (approved CIDRs are well-formed).

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// A network: address bits (IPv4 in the low 32 bits) masked to `prefix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    v6: bool,
    bits: u128,
    prefix: u8,
}

impl Cidr {
    fn width(v6: bool) -> u8 {
        if v6 { 128 } else { 32 }
    }
    fn mask(v6: bool, prefix: u8) -> u128 {
        let width = Self::width(v6);
        let all = if v6 { u128::MAX } else { u128::from(u32::MAX) };
        if prefix == 0 {
            0
        } else {
            all & !((1u128 << (width - prefix)) - 1)
        }
    }

    /// The same as `text.parse()`.
    pub fn parse(text: &str) -> Result<Self, String> {
        text.parse()
    }

    /// Whether every address of `other` is in `self`. Different families never contain each other.
    pub fn contains(&self, other: &Cidr) -> bool {
        self.v6 == other.v6 && self.prefix <= other.prefix && other.bits & Self::mask(self.v6, self.prefix) == self.bits
    }
}

impl FromStr for Cidr {
    type Err = String;
    /// `10.0.0.0/8`, `2001:db8::/32`; a bare address is a single host (/32 or /128). Host bits set below the
    /// prefix are refused, as EKS refuses them, so a typo does not silently widen or move a network.
    fn from_str(text: &str) -> Result<Self, String> {
        let invalid = || format!("{text:?} is not a CIDR block such as \"203.0.113.0/24\" or \"2001:db8::/32\"");
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text.trim(), None),
        };
        let (v6, bits) = match IpAddr::from_str(address).map_err(|_| invalid())? {
            IpAddr::V4(v4) => (false, u128::from(u32::from(v4))),
            IpAddr::V6(v6) => (true, u128::from(v6)),
        };
        let width = Self::width(v6);
        let prefix = match prefix {
            None => width,
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                p.parse::<u8>().ok().filter(|p| *p <= width).ok_or_else(invalid)?
            }
            Some(_) => return Err(invalid()),
        };
        if bits & !Self::mask(v6, prefix) != 0 {
            return Err(format!(
                "{text:?} has host bits set below the /{prefix} prefix; write the network address"
            ));
        }
        Ok(Self { v6, bits, prefix })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let address = if self.v6 {
            IpAddr::from(self.bits.to_be_bytes())
        } else {
            // The low 32 bits hold the IPv4 address by construction.
            IpAddr::from(u32::try_from(self.bits).unwrap_or_default().to_be_bytes())
        };
        write!(f, "{address}/{}", self.prefix)
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
