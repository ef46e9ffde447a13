//! The parts of the plugin's TLS that draw randomness, on *ring*: ephemeral key exchange, the server's signing key
//! and rustls's own random values (server random, ticket nonces).
//!
//! Why not aws-lc-rs, which the rest of the process uses: aws-lc seeds its DRBG tree from CPU jitter entropy on the
//! first use of randomness in a process, ~20 ms of CPU on this class of machine — most of a plugin start-up, and
//! Terraform starts the provider at least twice per command. *ring* reads the kernel's CSPRNG (`getrandom`) for
//! every value instead, which costs microseconds and is what Terraform's own side of this handshake (Go's
//! `crypto/rand`) does too.
//!
//! *ring* has no ML-KEM, so the post-quantum hybrid group aws-lc-rs would prefer (X25519MLKEM768) is not offered:
//! the channel is a private Unix socket between Terraform and its own child process, with keys that live only as
//! long as that process.

use std::sync::Arc;

use ring::agreement;
use ring::rand::{SecureRandom as _, SystemRandom};
use ring::signature::{self, EcdsaKeyPair, KeyPair as _};
use rustls::crypto::{ActiveKeyExchange, GetRandomFailed, KeyProvider, SecureRandom, SharedSecret, SupportedKxGroup};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer, SubjectPublicKeyInfoDer, alg_id};
use rustls::sign::{Signer, SigningKey};
use rustls::{NamedGroup, PeerMisbehaved, SignatureAlgorithm, SignatureScheme};

/// rustls's randomness (server random, session ticket nonces) straight from the kernel.
#[derive(Debug)]
pub struct KernelRandom;

impl SecureRandom for KernelRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        SystemRandom::new().fill(buf).map_err(|_| GetRandomFailed)
    }
}

/// Ephemeral ECDH groups, in the server's order of preference: X25519, then the NIST curves Go also offers.
pub static KX_GROUPS: &[&dyn SupportedKxGroup] = &[&X25519, &SECP256R1, &SECP384R1];

static X25519: KxGroup = KxGroup {
    name: NamedGroup::X25519,
    algorithm: &agreement::X25519,
    well_formed: |point| point.len() == 32,
};
static SECP256R1: KxGroup = KxGroup {
    name: NamedGroup::secp256r1,
    algorithm: &agreement::ECDH_P256,
    well_formed: uncompressed_point,
};
static SECP384R1: KxGroup = KxGroup {
    name: NamedGroup::secp384r1,
    algorithm: &agreement::ECDH_P384,
    well_formed: uncompressed_point,
};

/// TLS 1.3 allows only the uncompressed encoding, and TLS 1.2 as rustls negotiates it too; *ring* checks the point
/// is on the curve.
fn uncompressed_point(point: &[u8]) -> bool {
    point.first() == Some(&0x04)
}

struct KxGroup {
    name: NamedGroup,
    algorithm: &'static agreement::Algorithm,
    /// The shape check of the peer's share that *ring* leaves to the protocol.
    well_formed: fn(&[u8]) -> bool,
}

impl std::fmt::Debug for KxGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.name.fmt(f)
    }
}

impl SupportedKxGroup for KxGroup {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        let private = agreement::EphemeralPrivateKey::generate(self.algorithm, &SystemRandom::new())
            .map_err(|_| GetRandomFailed)?;
        let public = private.compute_public_key().map_err(|_| GetRandomFailed)?;
        Ok(Box::new(KeyExchange {
            name: self.name,
            algorithm: self.algorithm,
            well_formed: self.well_formed,
            private,
            public,
        }))
    }

    fn name(&self) -> NamedGroup {
        self.name
    }
}

struct KeyExchange {
    name: NamedGroup,
    algorithm: &'static agreement::Algorithm,
    well_formed: fn(&[u8]) -> bool,
    private: agreement::EphemeralPrivateKey,
    public: agreement::PublicKey,
}

impl ActiveKeyExchange for KeyExchange {
    fn complete(self: Box<Self>, peer: &[u8]) -> Result<SharedSecret, rustls::Error> {
        if !(self.well_formed)(peer) {
            return Err(PeerMisbehaved::InvalidKeyShare.into());
        }
        let peer = agreement::UnparsedPublicKey::new(self.algorithm, peer);
        agreement::agree_ephemeral(self.private, &peer, |secret| SharedSecret::from(secret.to_vec()))
            .map_err(|_| PeerMisbehaved::InvalidKeyShare.into())
    }

    fn pub_key(&self) -> &[u8] {
        self.public.as_ref()
    }

    fn group(&self) -> NamedGroup {
        self.name
    }
}

/// An ECDSA P-256 key: the server certificate's key, which signs the certificate itself (through rcgen) and the
/// TLS handshakes (through rustls).
pub struct EcdsaP256Key {
    pair: Arc<EcdsaKeyPair>,
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
            pair: Arc::new(pair),
            pkcs8: pkcs8.to_vec(),
        })
    }

    pub fn private_key_der(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.pkcs8.clone()))
    }

    fn sign(&self, message: &[u8]) -> Option<Vec<u8>> {
        let signature = self.pair.sign(&SystemRandom::new(), message).ok()?;
        Some(signature.as_ref().to_vec())
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
        EcdsaP256Key::sign(self, message).ok_or(rcgen::Error::RingUnspecified)
    }
}

/// Loads the server's key for rustls; only ECDSA P-256 in PKCS#8, the one kind this process generates.
#[derive(Debug)]
pub struct EcdsaP256Keys;

impl KeyProvider for EcdsaP256Keys {
    fn load_private_key(&self, key_der: PrivateKeyDer<'static>) -> Result<Arc<dyn SigningKey>, rustls::Error> {
        match key_der {
            PrivateKeyDer::Pkcs8(pkcs8) => Ok(Arc::new(EcdsaP256Key::from_pkcs8(pkcs8.secret_pkcs8_der())?)),
            _ => Err(rustls::Error::General("the plugin's TLS key must be PKCS#8".into())),
        }
    }
}

impl SigningKey for EcdsaP256Key {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        offered
            .contains(&SignatureScheme::ECDSA_NISTP256_SHA256)
            .then(|| Box::new(EcdsaP256Signer(self.pair.clone())) as Box<dyn Signer>)
    }

    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        Some(rustls::sign::public_key_to_spki(
            &alg_id::ECDSA_P256,
            self.pair.public_key(),
        ))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::ECDSA
    }
}

#[derive(Debug)]
struct EcdsaP256Signer(Arc<EcdsaKeyPair>);

impl Signer for EcdsaP256Signer {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        self.0
            .sign(&SystemRandom::new(), message)
            .map(|signature| signature.as_ref().to_vec())
            .map_err(|_| rustls::Error::General("ECDSA signing failed".into()))
    }

    fn scheme(&self) -> SignatureScheme {
        SignatureScheme::ECDSA_NISTP256_SHA256
    }
}
