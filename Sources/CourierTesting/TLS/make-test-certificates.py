#!/usr/bin/env python3
"""Writes TestCertificates.swift: the test CA, leaves and client identity MockServer serves over TLS.

Run from this folder (`python3 make-test-certificates.py`, needs the `cryptography` package) only to
replace them; the committed ones are valid until 2125. Every key here is public test material.
"""
import datetime
import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NOW = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
LONG = datetime.datetime(2125, 1, 1, tzinfo=datetime.timezone.utc)


def name(common):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Courier tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common)])


def key():
    return ec.generate_private_key(ec.SECP256R1())


def certificate(subject, subject_key, issuer, issuer_key, *, ca=False, hosts=(), client=False,
                not_before=NOW, not_after=LONG):
    builder = (x509.CertificateBuilder()
               .subject_name(subject).issuer_name(issuer)
               .public_key(subject_key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(
            digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
            key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False),
            critical=True)
    else:
        builder = builder.add_extension(x509.KeyUsage(
            digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
            key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False),
            critical=True)
        usage = ExtendedKeyUsageOID.CLIENT_AUTH if client else ExtendedKeyUsageOID.SERVER_AUTH
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        if issuer_key is not subject_key:
            builder = builder.add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    if hosts:
        names = []
        for host in hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names.append(x509.DNSName(host))
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def key_pem(private):
    return private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()).decode()


LOOPBACK = ("localhost", "127.0.0.1", "127.0.0.2", "::1")

ca_key = key()
ca = certificate(name("Courier Test CA"), ca_key, name("Courier Test CA"), ca_key, ca=True)
leaf_key = key()
leaf = certificate(name("localhost"), leaf_key, ca.subject, ca_key, hosts=LOOPBACK)
expired = certificate(name("localhost"), leaf_key, ca.subject, ca_key, hosts=LOOPBACK,
                      not_before=datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc),
                      not_after=datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc))
wrong_host = certificate(name("wrong.example"), leaf_key, ca.subject, ca_key, hosts=("wrong.example",))
self_signed = certificate(name("localhost"), leaf_key, name("localhost"), leaf_key, hosts=LOOPBACK)
client_key = key()
client = certificate(name("Courier test client"), client_key, ca.subject, ca_key, client=True)

entries = [
    ("caPEM", "The test certificate authority: trust it, and every other certificate here but the self-signed one chains to it.", pem(ca)),
    ("leafPEM", "The server certificate for localhost, 127.0.0.1, 127.0.0.2 and ::1, valid until 2125.", pem(leaf)),
    ("leafKeyPEM", "The server certificates' private key (P-256).", key_pem(leaf_key)),
    ("expiredLeafPEM", "A server certificate for the same names that expired in 2001.", pem(expired)),
    ("wrongHostLeafPEM", "A server certificate for `wrong.example` only.", pem(wrong_host)),
    ("selfSignedLeafPEM", "A self-signed server certificate for the loopback names, signed by no CA.", pem(self_signed)),
    ("clientPEM", "A client certificate for mutual TLS, issued by the test CA.", pem(client)),
    ("clientKeyPEM", "The client certificate's private key (P-256).", key_pem(client_key)),
]

with open("TestCertificates.swift", "w") as out:
    out.write("// Generated by make-test-certificates.py: public test material, never a secret.\n\n")
    out.write("/// The certificates ``MockServer`` serves over TLS, as PEM text: a test CA, server certificates\n")
    out.write("/// (valid, expired, for another host, self-signed) and a client identity for mutual TLS.\n")
    out.write("public enum TestCertificates {\n")
    for index, (field, doc, text) in enumerate(entries):
        if index:
            out.write("\n")
        out.write(f"    /// {doc}\n")
        out.write(f"    public static let {field} = \"\"\"\n{text}\"\"\"\n")
    out.write("}\n")
