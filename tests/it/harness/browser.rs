//! A real headless Chromium behind its own ChromeDriver, driven through WebDriver (Debian's
//! `chromium` and `chromium-driver`; `scripts/setup` installs them; `CHROMIUM`/`CHROMEDRIVER`
//! override the paths). A missing ChromeDriver is a failure, not a skip.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, MouseActions, PointerAction};
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::harness::server::free_port;

/// Browser tests run one at a time: each Chromium wants most of a shared core.
pub static ONE_BROWSER_TEST_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// One Chromium with its own profile, behind its own ChromeDriver.
pub struct Browser {
    pub client: Client,
    driver: Child,
    driver_port: u16,
    _profile: tempfile::TempDir,
}

pub fn chromedriver() -> String {
    std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".to_owned())
}

pub fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned())
}

impl Browser {
    pub async fn start(width: u32, height: u32) -> Browser {
        let driver_port = free_port();
        let mut driver = Command::new(chromedriver())
            .arg(format!("--port={driver_port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {} ({e}); install Debian's chromium and chromium-driver \
                     (TARNKAPPE_SETUP_TESTS=1 scripts/setup)",
                    chromedriver()
                )
            });
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = driver.try_wait() {
                panic!("chromedriver exited with {status}");
            }
            if TcpStream::connect(("127.0.0.1", driver_port)).is_ok() {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().expect("profile dir");
        let args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let mut options = json!({ "binary": chromium(), "args": args });
        if width < 600 {
            // Desktop windows have a minimum width; a phone-sized viewport needs emulation.
            options["mobileEmulation"] =
                json!({ "deviceMetrics": { "width": width, "height": height, "pixelRatio": 1 } });
        }
        let mut caps = serde_json::Map::new();
        caps.insert("goog:chromeOptions".to_owned(), options);
        // Keep the console's messages of every level for `Browser::console`.
        caps.insert("goog:loggingPrefs".to_owned(), json!({ "browser": "ALL" }));
        let connected =
            ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                .capabilities(caps)
                .connect(&format!("http://127.0.0.1:{driver_port}"))
                .await;
        let client = match connected {
            Ok(client) => client,
            Err(e) => {
                let _ = driver.kill();
                let _ = driver.wait();
                panic!("cannot start a Chromium session through chromedriver: {e}");
            }
        };
        Browser {
            client,
            driver,
            driver_port,
            _profile: profile,
        }
    }

    /// Runs `expr` in the page and returns its value.
    pub async fn js(&self, expr: &str) -> Value {
        self.client
            .execute(&format!("return ({expr});"), vec![])
            .await
            .unwrap_or_else(|e| panic!("script {expr}: {e}"))
    }

    /// Waits until `expr` is truthy in the page; returns its value.
    pub async fn wait_for(&self, expr: &str, what: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let v = self.js(expr).await;
            let truthy =
                !matches!(v, Value::Null | Value::Bool(false)) && v != json!(0) && v != json!("");
            if truthy {
                return v;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks the element `css`, then [`Browser::wait_for`] `expr`.
    pub async fn click_then_wait(&self, css: &str, expr: &str, what: &str) -> Value {
        self.el(css)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
        self.wait_for(expr, what).await
    }

    /// The browser console's entries (`level`, `message`, …) since the last call: ChromeDriver's
    /// log endpoint, which WebDriver itself does not define.
    pub async fn console(&self) -> Vec<Value> {
        let session = self
            .client
            .session_id()
            .await
            .expect("session id")
            .expect("a session");
        let url = format!(
            "http://127.0.0.1:{}/session/{session}/se/log",
            self.driver_port
        );
        let body: Value = tokio::task::block_in_place(|| {
            reqwest::blocking::Client::new()
                .post(&url)
                .json(&json!({ "type": "browser" }))
                .send()
                .and_then(|r| r.json())
        })
        .unwrap_or_else(|e| panic!("console log: {e}"));
        body["value"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("no console entries in {body}"))
    }

    pub async fn el(&self, css: &str) -> Element {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("element {css}: {e}"))
    }

    pub async fn text(&self, css: &str) -> String {
        self.el(css).await.text().await.expect("text")
    }

    /// Sends keys to whatever has the focus, as a keyboard user would.
    pub async fn keys(&self, keys: &str) {
        self.client
            .active_element()
            .await
            .expect("focused element")
            .send_keys(keys)
            .await
            .expect("send keys");
    }

    pub async fn hover(&self, element: Element) {
        let mouse = MouseActions::new("mouse".to_owned()).then(PointerAction::MoveToElement {
            element,
            duration: Some(Duration::from_millis(50)),
            x: 0.0,
            y: 0.0,
        });
        self.client
            .perform_actions(mouse)
            .await
            .expect("move the mouse");
    }

    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
        std::fs::create_dir_all(&dir).expect("target dir");
        let path = dir.join(name);
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// Ends the session (Chromium quits) and stops ChromeDriver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        self.stop_driver();
    }

    fn stop_driver(&mut self) {
        if matches!(self.driver.try_wait(), Ok(Some(_))) {
            return;
        }
        // `/shutdown` makes ChromeDriver quit its browsers too; a kill would orphan them.
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.driver_port)) {
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = s.write_all(
                b"GET /shutdown HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            );
            let _ = s.read(&mut [0u8; 256]);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(self.driver.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.stop_driver();
    }
}
