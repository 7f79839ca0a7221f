//! Certificates for TLS servers of the tests (a private Redis, a `wss://` upstream): a private
//! CA and a server certificate for 127.0.0.1 signed by it, made with `openssl` (full tier).

use std::process::{Command, Stdio};

fn openssl(dir: &std::path::Path, args: &[&str]) {
    let status = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("openssl must be installed");
    assert!(status.success(), "openssl {args:?} failed");
}

/// A private CA (`ca.pem`) and a server certificate for 127.0.0.1 signed by it (`cert.pem`,
/// `key.pem`), in `dir`.
pub fn make_certificates(dir: &std::path::Path) {
    let days = ["-days", "2"];
    openssl(
        dir,
        &[
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=tarnkappe test CA",
            ][..],
            &days[..],
            &["-keyout", "ca.key", "-out", "ca.pem"][..],
        ]
        .concat(),
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            "key.pem",
            "-out",
            "server.csr",
        ],
    );
    std::fs::write(dir.join("san.cnf"), "subjectAltName=IP:127.0.0.1\n").expect("san");
    openssl(
        dir,
        &[
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-extfile",
                "san.cnf",
            ][..],
            &days[..],
            &["-out", "cert.pem"][..],
        ]
        .concat(),
    );
}
