//! The server certificate's key on *ring*, for rcgen to sign the certificate with.
//!
//! Why not aws-lc-rs, which the rest of the process uses: aws-lc seeds its DRBG tree from CPU jitter entropy on the
//! first use of randomness in a process, ~20 ms of CPU on this class of machine — most of a plugin start-up, and
//! Terraform starts the provider at least twice per command. *ring* reads the kernel's CSPRNG (`getrandom`) for
//! every value instead, which costs microseconds and is what Terraform's own side of this handshake (Go's
//! `crypto/rand`) does too. rcgen signs with aws-lc when given its own `KeyPair` (its `aws_lc_rs` feature is what
//! the tests' P-521 client certificates need), so the key is handed to it as a remote `SigningKey`.

use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair as _};
use rustls::crypto::GetRandomFailed;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

/// An ECDSA P-256 key: the server certificate's key, which signs the certificate itself (through rcgen) and the
/// TLS handshakes (through rustls).
pub struct EcdsaP256Key {
    pair: EcdsaKeyPair,
    pkcs8: Vec<u8>,
}

impl EcdsaP256Key {
    pub fn generate() -> Result<Self, rustls::Error> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
            .map_err(|_| GetRandomFailed)?;
        Self::from_pkcs8(pkcs8.as_ref())
    }

    fn from_pkcs8(pkcs8: &[u8]) -> Result<Self, rustls::Error> {
        let pair = EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8, &SystemRandom::new())
            .map_err(|err| rustls::Error::General(format!("not an ECDSA P-256 PKCS#8 key: {err}")))?;
        Ok(Self {
            pair,
            pkcs8: pkcs8.to_vec(),
        })
    }

    pub fn private_key_der(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.pkcs8.clone()))
    }
}

impl std::fmt::Debug for EcdsaP256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EcdsaP256Key")
    }
}

impl rcgen::PublicKeyData for EcdsaP256Key {
    fn der_bytes(&self) -> &[u8] {
        self.pair.public_key().as_ref()
    }

    fn algorithm(&self) -> &'static rcgen::SignatureAlgorithm {
        &rcgen::PKCS_ECDSA_P256_SHA256
    }
}

impl rcgen::SigningKey for EcdsaP256Key {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rcgen::Error> {
        self.pair
            .sign(&SystemRandom::new(), message)
            .map(|signature| signature.as_ref().to_vec())
            .map_err(|_| rcgen::Error::RingUnspecified)
    }
}
