//! SHA-256 in lowercase hex: the digests the provider records (write-only arguments in private state, the content
//! of composed objects in `components`) and derives (idempotency tokens).

/// The SHA-256 of `content`, 64 hex digits; callers that need fewer take a prefix.
pub fn sha256_hex(content: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, content);
    digest.as_ref().iter().fold(String::with_capacity(64), |mut hex, byte| {
        use std::fmt::Write as _;
        let _ = write!(hex, "{byte:02x}");
        hex
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn is_the_sha256_of_the_content_in_hex() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
