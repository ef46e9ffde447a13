"""TLS material of the Kubernetes API's listener: a CA (DescribeCluster's `certificateAuthority.data`) and the
server certificate it signs (SANs 127.0.0.1 and localhost), generated once per process."""
import base64
import datetime as dt
import ipaddress
import threading

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_lock = threading.Lock()
_tls: dict = {}


def _generate_tls() -> dict:
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hyperpod-sandbox-kubernetes-ca")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
          .not_valid_after(now + dt.timedelta(days=365))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=365))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return {"ca_pem": ca.public_bytes(pem),
            "cert_pem": cert.public_bytes(pem),
            "key_pem": key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())}


def tls() -> dict:
    """{"ca_pem", "cert_pem", "key_pem"}: PEM bytes, the same for the life of the process."""
    with _lock:
        if not _tls:
            _tls.update(_generate_tls())
        return _tls


def ca_pem() -> bytes:
    return tls()["ca_pem"]


def ca_data() -> str:
    """`certificateAuthority.data` of DescribeCluster: base64 of the CA's PEM."""
    return base64.b64encode(ca_pem()).decode()
