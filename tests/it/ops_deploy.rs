//! The Kubernetes examples under `deploy/`: they validate offline against the Kubernetes schemas
//! (`kubernetes-validate --strict` from PyPI, `scripts/requirements-test.txt`; without it these
//! tests fail), agree with the image (user id, port) and with each other (Secret keys, ConfigMap),
//! keep the sidecar hardened, and their configuration starts the real binary, whose answers on
//! the probe paths are 200. The operations guide (docs/operations.md) points to the files instead
//! of carrying copies.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::harness::http::client;
use crate::harness::image::{image_uid, repo_image, repo_root};
use crate::harness::python::pip_tool;
use crate::harness::server::TestServer;

/// Every `*.yaml` below `deploy/`, sorted.
fn manifest_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read deploy/").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo_root().join("deploy"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no manifests under deploy/");
    files
}

/// Runs `kubernetes-validate --strict` on `files`: Ok, or Err with its report.
fn validate(files: &[PathBuf]) -> Result<String, String> {
    let output = pip_tool("kubernetes-validate")
        .args(["--strict", "--no-warn"])
        .args(files)
        .output()
        .expect("run kubernetes-validate");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(report)
    } else {
        Err(report)
    }
}

/// The documents of a YAML file as JSON (PyYAML comes with kubernetes-validate).
fn yaml_documents(path: &Path) -> Vec<Value> {
    let output = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], sys.stdout)",
        ])
        .arg(path)
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "cannot read {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON from python3")
}

fn all_documents() -> Vec<(PathBuf, Value)> {
    manifest_files()
        .into_iter()
        .flat_map(|f| yaml_documents(&f).into_iter().map(move |d| (f.clone(), d)))
        .collect()
}

fn of_kind<'a>(docs: &'a [(PathBuf, Value)], kind: &str) -> Vec<&'a (PathBuf, Value)> {
    docs.iter().filter(|(_, d)| d["kind"] == kind).collect()
}

/// The Tarnkappe container of a Deployment.
fn tarnkappe_container(deployment: &Value) -> &Value {
    deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .and_then(|cs| {
            cs.iter()
                .find(|c| c["image"].as_str().is_some_and(|i| i.contains("tarnkappe")))
        })
        .expect("a container running the tarnkappe image")
}

/// The one ConfigMap's `proxy.toml`.
fn configmap_proxy_toml(docs: &[(PathBuf, Value)]) -> String {
    let maps = of_kind(docs, "ConfigMap");
    assert_eq!(maps.len(), 1, "one ConfigMap shared by the variants");
    maps[0].1["data"]["proxy.toml"]
        .as_str()
        .expect("ConfigMap data proxy.toml")
        .to_owned()
}

/// The one Secret's values (`stringData`).
fn secret_values(docs: &[(PathBuf, Value)]) -> (String, HashMap<String, String>) {
    let secrets = of_kind(docs, "Secret");
    assert_eq!(secrets.len(), 1, "one Secret shared by the variants");
    let doc = &secrets[0].1;
    let values = doc["stringData"]
        .as_object()
        .expect("stringData")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
        .collect();
    (
        doc["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        values,
    )
}

#[test]
fn deploy_manifests_validate_against_the_kubernetes_schemas() {
    let files = manifest_files();
    if let Err(report) = validate(&files) {
        panic!("deploy/ does not validate:\n{report}");
    }
}

#[test]
fn the_validator_rejects_a_broken_manifest() {
    // Proof that the check above can fail: a misspelled field and a wrong type.
    let dir = tempfile::tempdir().expect("temp dir");
    let original = repo_root().join("deploy/sidecar/deployment.yaml");
    let text = std::fs::read_to_string(&original).expect("read deployment.yaml");
    for (from, to) in [
        ("readOnlyRootFilesystem", "readOnlyRootFileSystem"),
        ("replicas: 1", "replicas: one"),
    ] {
        assert!(text.contains(from), "{from} not in deployment.yaml");
        let broken = dir.path().join("broken.yaml");
        std::fs::write(&broken, text.replacen(from, to, 1)).expect("write");
        assert!(validate(&[broken]).is_err(), "{to} was accepted");
    }
}

#[test]
fn the_sidecar_matches_the_image_and_is_hardened() {
    let docs = all_documents();
    let image = repo_image();
    let stage = image.dockerfile.image();
    let uid = image_uid(stage).expect("numeric USER");
    let exposed: Vec<u64> = stage
        .exposed()
        .iter()
        .filter_map(|p| p.trim_end_matches("/tcp").parse().ok())
        .collect();
    let (secret_name, secret) = secret_values(&docs);
    let configmap_name = of_kind(&docs, "ConfigMap")[0].1["metadata"]["name"].clone();
    let deployments = of_kind(&docs, "Deployment");
    assert!(deployments.len() >= 2, "the sidecar and the Redis variant");
    for (file, deployment) in deployments {
        let c = tarnkappe_container(deployment);
        let at = file.display();
        let sc = &c["securityContext"];
        assert_eq!(sc["runAsNonRoot"], true, "{at}");
        assert_eq!(sc["runAsUser"], uid, "{at}: the image's USER");
        assert_eq!(sc["readOnlyRootFilesystem"], true, "{at}");
        assert_eq!(sc["allowPrivilegeEscalation"], false, "{at}");
        assert_eq!(
            sc["capabilities"]["drop"],
            serde_json::json!(["ALL"]),
            "{at}"
        );
        assert_eq!(
            c["livenessProbe"]["httpGet"]["path"], "/api/v1/health",
            "{at}"
        );
        assert_eq!(
            c["readinessProbe"]["httpGet"]["path"], "/api/v1/health/ready",
            "{at}"
        );
        let port = c["ports"][0]["containerPort"]
            .as_u64()
            .expect("containerPort");
        assert!(exposed.contains(&port), "{at}: port {port} is not EXPOSEd");
        // Everything the pod takes from Secrets and ConfigMaps exists.
        let pod = &deployment["spec"]["template"]["spec"];
        for container in pod["containers"].as_array().expect("containers") {
            for env in container["env"].as_array().into_iter().flatten() {
                let r = &env["valueFrom"]["secretKeyRef"];
                if r.is_object() {
                    assert_eq!(r["name"], secret_name.as_str(), "{at}");
                    let key = r["key"].as_str().unwrap_or_default();
                    assert!(
                        secret.contains_key(key),
                        "{at}: Secret key {key} is missing"
                    );
                }
            }
        }
        let volumes = pod["volumes"].as_array().expect("volumes");
        assert!(
            volumes
                .iter()
                .any(|v| v["configMap"]["name"] == configmap_name),
            "{at}: the ConfigMap is not mounted"
        );
        // The config file sits where the image's default command reads it.
        let mounts = c["volumeMounts"].as_array().expect("volumeMounts");
        let cmd = stage.cmd().map(|c| c.to_string()).unwrap_or_default();
        assert!(
            mounts.iter().any(|m| m["mountPath"]
                .as_str()
                .is_some_and(|p| cmd.contains(&format!("{p}/proxy.toml")))),
            "{at}: nothing mounted where CMD {cmd} reads proxy.toml"
        );
    }
    // The sidecar keeps the web page off.
    let toml = configmap_proxy_toml(&docs);
    let table: toml::Table = toml.parse().expect("ConfigMap proxy.toml is TOML");
    assert_eq!(table["web"]["enabled"].as_bool(), Some(false));
}

/// The environment of the Tarnkappe container of `deployment`, with Secret references resolved
/// by `secret`.
fn container_env(deployment: &Value, secret: &HashMap<String, String>) -> Vec<(String, String)> {
    tarnkappe_container(deployment)["env"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let name = e["name"].as_str().unwrap_or_default().to_owned();
            let value = match e["valueFrom"]["secretKeyRef"]["key"].as_str() {
                Some(key) => secret.get(key).cloned().unwrap_or_default(),
                None => e["value"].as_str().unwrap_or_default().to_owned(),
            };
            (name, value)
        })
        .collect()
}

fn start_with(toml: &Path, env: &[(String, String)]) -> Result<TestServer, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tarnkappe"));
    cmd.args(["serve", "--config"]).arg(toml).env_clear();
    if let Ok(path) = std::env::var("PATH") {
        cmd.env("PATH", path);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.env("TARNKAPPE_LISTEN", "127.0.0.1:0");
    TestServer::try_start_command(cmd)
}

#[test]
fn the_examples_configuration_starts_and_answers_the_probes() {
    let docs = all_documents();
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = dir.path().join("proxy.toml");
    std::fs::write(&toml, configmap_proxy_toml(&docs)).expect("write proxy.toml");
    let (_, placeholders) = secret_values(&docs);
    // Values a real Secret would hold; Redis is the shared one of the test machines.
    let mut secret = placeholders.clone();
    secret.insert(
        "encryption-key".into(),
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=".into(),
    );
    secret.insert("api-keys".into(), "chatbot:deploy-test-key".into());
    secret.insert("redis-url".into(), "redis://127.0.0.1:6379/0".into());
    let http = client();
    for (file, deployment) in of_kind(&docs, "Deployment") {
        let at = file.display();
        // The Secret as shipped is refused: placeholders never run.
        let shipped = container_env(deployment, &placeholders);
        assert!(
            start_with(&toml, &shipped).is_err(),
            "{at}: started with the placeholder Secret"
        );
        let server = start_with(&toml, &container_env(deployment, &secret))
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let c = tarnkappe_container(deployment);
        for probe in ["livenessProbe", "readinessProbe"] {
            let path = c[probe]["httpGet"]["path"].as_str().expect("probe path");
            let resp = http.get(server.url(path)).send().expect("probe");
            assert_eq!(resp.status(), 200, "{at}: {probe} {path}\n{}", server.log());
        }
        let page = http.get(server.url("/")).send().expect("page");
        assert_eq!(page.status(), 404, "{at}: the web page is served");
    }
}

#[test]
fn the_operations_guide_points_to_the_manifests_instead_of_copying_them() {
    let guide = repo_root().join("docs/operations.md");
    let readme = std::fs::read_to_string(&guide).expect("docs/operations.md");
    for file in manifest_files() {
        let rel = file
            .strip_prefix(repo_root())
            .expect("below the repository")
            .display()
            .to_string();
        assert!(
            readme.contains(&rel),
            "docs/operations.md does not mention {rel}"
        );
    }
    for kind in ["kind: Deployment", "kind: NetworkPolicy", "kind: Secret"] {
        assert!(
            !readme.contains(kind),
            "docs/operations.md carries an inline {kind}"
        );
    }
}
