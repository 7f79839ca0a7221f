//! An https upstream: certificate verification is on (an unknown CA fails closed with a
//! provider-shaped 502), and `[upstream] ca_file` adds a private CA. The TLS upstream is a
//! small Python server with a freshly generated self-signed certificate.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

use crate::harness::config::edited;
use crate::harness::fixtures::EMAIL;
use crate::harness::http::client;
use crate::harness::server::{free_port, TestServer};

const SERVER: &str = r#"
import base64, http.server, json, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                chunk = self.rfile.read(size + 2)
                if size == 0:
                    break
                body += chunk[:-2]
        else:
            body = self.rfile.read(n)
        out = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant",
            "content": base64.b64encode(body).decode()}, "finish_reason": "stop"}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
srv = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
"#;

struct Py(Child);
impl Drop for Py {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn https_upstream_with_verification_and_ca_file() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, ca_key) = (dir.path().join("ca.pem"), dir.path().join("ca.key"));
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let (csr, ext) = (dir.path().join("leaf.csr"), dir.path().join("ext.cnf"));
    std::fs::write(
        &ext,
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    let openssl = |args: Vec<&std::ffi::OsStr>| {
        let ok = Command::new("openssl")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl is needed for the TLS test");
        assert!(ok.success());
    };
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    openssl(vec![
        os("req"),
        os("-x509"),
        os("-newkey"),
        os("rsa:2048"),
        os("-nodes"),
        os("-days"),
        os("2"),
        os("-subj"),
        os("/CN=Tarnkappe Test CA"),
        os("-keyout"),
        ca_key.as_os_str(),
        os("-out"),
        ca.as_os_str(),
    ]);
    openssl(vec![
        os("req"),
        os("-newkey"),
        os("rsa:2048"),
        os("-nodes"),
        os("-subj"),
        os("/CN=127.0.0.1"),
        os("-keyout"),
        key.as_os_str(),
        os("-out"),
        csr.as_os_str(),
    ]);
    openssl(vec![
        os("x509"),
        os("-req"),
        os("-in"),
        csr.as_os_str(),
        os("-CA"),
        ca.as_os_str(),
        os("-CAkey"),
        ca_key.as_os_str(),
        os("-CAcreateserial"),
        os("-days"),
        os("2"),
        os("-extfile"),
        ext.as_os_str(),
        os("-out"),
        cert.as_os_str(),
    ]);
    let script = dir.path().join("tls_upstream.py");
    std::fs::write(&script, SERVER).unwrap();
    let port = free_port();
    let _py = Py(Command::new("python3")
        .arg(&script)
        .arg(port.to_string())
        .arg(&cert)
        .arg(&key)
        .spawn()
        .expect("python3"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "TLS upstream did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let upstream = format!("https://127.0.0.1:{port}");
    let body =
        json!({"model": "m", "messages": [{"role": "user", "content": format!("Mail {EMAIL}")}]});

    // the system roots do not know this CA: refused, nothing leaks
    let server = TestServer::start(&[("TARNKAPPE_OPENAI_UPSTREAM", upstream.as_str())]);
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 502);
    let v: Value = resp.json().unwrap();
    assert!(v["error"]["message"].is_string());
    drop(server);

    // with the CA bundle configured the exchange works
    let ca_file = format!("[upstream]\nca_file = \"{}\"\n", ca.display());
    let toml = edited(&[("[upstream]\n", &ca_file)]);
    let server =
        TestServer::start_with_config(&[("TARNKAPPE_OPENAI_UPSTREAM", upstream.as_str())], &toml);
    let resp = client()
        .post(server.url("/v1/chat/completions"))
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200, "{}", server.log());
    let v: Value = resp.json().unwrap();
    let received = base64::engine::general_purpose::STANDARD
        .decode(v["choices"][0]["message"]["content"].as_str().unwrap())
        .unwrap();
    let received = String::from_utf8(received).unwrap();
    assert!(
        !received.contains(EMAIL),
        "the upstream received the original"
    );
    assert!(received.contains("[[EMAIL_1]]"));
}
