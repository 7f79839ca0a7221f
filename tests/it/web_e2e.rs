//! The web page end to end in a real headless Chromium, driven through WebDriver (Debian's
//! `chromium` and `chromium-driver`; `scripts/setup` installs them). A missing ChromeDriver is a
//! failure, not a skip.
//!
//! Each test starts the real binary, its own `chromedriver` on a free port and a browser with a
//! fresh profile; two profiles are two browsers, i.e. two tenants. The screenshot of the page
//! after an anonymization is written to `target/web-screenshot.png` (and a phone-width one to
//! `target/web-screenshot-phone.png`).

use std::time::Duration;

use fantoccini::key::Key;
use serde_json::{json, Value};

use crate::harness::api::{self, status_value};
use crate::harness::browser::{Browser, ONE_BROWSER_TEST_AT_A_TIME};
use crate::harness::http::client;
use crate::harness::server::TestServer;

const KEY: &str = "ops-key";
const KEYS: (&str, &str) = ("TARNKAPPE_API_KEYS", "ops:ops-key");

/// A German letter with names, an IBAN, a Steuer-ID, an address and an e-mail address.
const LETTER: &str = "Sehr geehrte Frau Katrin Vogel,\n\n\
wie besprochen überweisen wir die Erstattung auf Ihr Konto IBAN DE89 3704 0044 0532 0130 00.\n\
Ihre Steuer-ID 86095742719 haben wir vermerkt. Bitte senden Sie die Unterlagen an\n\
Lindenallee 7, 50667 Köln. Rückfragen an Jonas Becker, jonas.becker@example.de.\n\n\
Mit freundlichen Grüßen\nSabine Krüger\n";

/// Calls the API directly with the operator key (the reference the page is compared with).
fn api_post(server: &TestServer, path: &str, body: Value) -> (u16, Value) {
    blocking(|| status_value(api::post(server, path, Some(KEY), &body)))
}

/// Runs blocking HTTP calls (reqwest's blocking client) from inside the async tests.
fn blocking<T>(f: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(f)
}

/// The API's own words for an error, fetched by provoking it with the key.
fn api_message(server: &TestServer, path: &str, body: Value, status: u16) -> String {
    let (got, body) = api_post(server, path, body);
    assert_eq!(got, status, "{body}");
    body["message"].as_str().expect("message").to_owned()
}

/// `POST /deanonymize` with the page's cookie and the given origin evidence, without a key.
fn call_with_cookie(
    server: &TestServer,
    cookie_header: &str,
    body: &Value,
    origin: Option<&str>,
    fetch_site: Option<&str>,
) -> (u16, Value) {
    let mut req = client()
        .post(server.url("/api/v1/deanonymize"))
        .header("cookie", cookie_header)
        .json(body);
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    if let Some(s) = fetch_site {
        req = req.header("sec-fetch-site", s);
    }
    status_value(req.send().expect("call"))
}

/// Rows of the mapping table as (token, type, original).
async fn mapping_rows(b: &Browser) -> Vec<(String, String, String)> {
    let rows = b
        .js("Array.from(document.querySelectorAll('#mapping-table tbody tr')).map(tr => Array.from(tr.cells).map(td => td.textContent))")
        .await;
    rows.as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let cell = |i: usize| r[i].as_str().expect("cell").to_owned();
            (cell(0), cell(1), cell(2))
        })
        .collect()
}

async fn goto_page(b: &Browser, server: &TestServer) {
    b.client
        .goto(&server.url("/"))
        .await
        .expect("open the page");
    b.wait_for(
        "document.querySelectorAll('#legend li').length === 18",
        "the legend from GET /entities",
    )
    .await;
}

/// The page loads without a console message of level warning or worse — no failed request
/// (a `/favicon.ico` the server does not have would log a 404), no CSP violation, no script
/// error. The browser asks for an icon after the load event, so the check waits a moment.
async fn console_is_clean_after_load(b: &Browser) {
    b.wait_for("document.readyState === 'complete'", "the load event")
        .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let entries = b.console().await;
    let bad: Vec<&Value> = entries
        .iter()
        .filter(|e| matches!(e["level"].as_str(), Some("SEVERE" | "WARNING")))
        .collect();
    assert!(bad.is_empty(), "console after loading the page: {bad:?}");
    let favicon = entries
        .iter()
        .any(|e| e["message"].as_str().is_some_and(|m| m.contains("favicon")));
    assert!(!favicon, "console mentions the favicon: {entries:?}");
}

/// Puts `text` into the anonymize field the way a user does: focus, type.
async fn type_into(b: &Browser, css: &str, text: &str) {
    let field = b.el(css).await;
    field.clear().await.expect("clear");
    field.send_keys(text).await.expect("type");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anonymize_restore_and_delete_in_a_real_browser() {
    let _one = ONE_BROWSER_TEST_AT_A_TIME.lock().await;
    let server = TestServer::start(&[KEYS]);
    let b = Browser::start(1280, 1700).await;
    goto_page(&b, &server).await;
    console_is_clean_after_load(&b).await;

    // The legend names all 18 types (the contract's 13 first), each in its own colour.
    let legend_types = b
        .js("Array.from(document.querySelectorAll('#legend code.tok')).map(c => c.dataset.type)")
        .await;
    assert_eq!(legend_types.as_array().expect("types").len(), 18);
    assert_eq!(legend_types[0], "PERSON");
    assert_eq!(legend_types[12], "URL");
    assert_eq!(legend_types[13], "SECRET");

    // Type the letter; the counter counts code points as the API does.
    type_into(&b, "#anon-input", LETTER).await;
    let typed = b.js("document.getElementById('anon-input').value").await;
    assert_eq!(typed, LETTER, "typed text arrives unchanged");
    assert_eq!(
        b.text("#anon-count").await,
        format!("{} / 100000 characters", LETTER.chars().count())
    );

    // Keyboard only: Tab from the text field over the optional terms to "Anonymize", Enter.
    b.keys(&Key::Tab.to_string()).await;
    assert_eq!(b.js("document.activeElement.id").await, "anon-terms");
    b.keys(&Key::Tab.to_string()).await;
    assert_eq!(b.js("document.activeElement.id").await, "anon-submit");
    b.keys(&Key::Enter.to_string()).await;
    b.wait_for(
        "!document.getElementById('result').hidden && document.querySelectorAll('#anon-output mark.tok').length > 0",
        "highlighted tokens",
    )
    .await;

    // The page shows exactly what the API computes for this text.
    let (status, reference) = api_post(&server, "/api/v1/anonymize", json!({ "text": LETTER }));
    assert_eq!(status, 200, "{reference}");
    let shown = b.text("#anon-output").await;
    assert_eq!(
        b.js("document.getElementById('anon-output').textContent")
            .await,
        reference["anonymized_text"],
        "shown: {shown}"
    );
    let rows = mapping_rows(&b).await;
    let expected: Vec<(String, String, String)> = reference["mapping"]
        .as_array()
        .expect("mapping")
        .iter()
        .map(|m| {
            let s = |k: &str| m[k].as_str().expect("string").to_owned();
            (s("token"), s("entity_type"), s("value"))
        })
        .collect();
    assert_eq!(rows, expected);
    let types: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    for required in ["PERSON", "IBAN", "STEUER_ID", "LOCATION", "EMAIL_ADDRESS"] {
        assert!(
            types.contains(&required),
            "{required} not found in {rows:?}"
        );
    }
    let iban = rows
        .iter()
        .find(|r| r.1 == "IBAN")
        .expect("IBAN row")
        .clone();
    assert_eq!(iban.2, "DE89 3704 0044 0532 0130 00");
    for value in [
        "DE89",
        "Katrin Vogel",
        "86095742719",
        "50667 Köln",
        "Jonas Becker",
    ] {
        assert!(!shown.contains(value), "{value} is replaced in the output");
    }

    // Every token in the text is a highlighted, focusable mark in its entity's colour.
    let marks = b
        .js("Array.from(document.querySelectorAll('#anon-output mark.tok')).map(m => [m.textContent, m.dataset.type, m.tabIndex, getComputedStyle(m).backgroundColor])")
        .await;
    let marks = marks.as_array().expect("marks");
    let occurrences: usize = reference["entities"].as_array().expect("entities").len();
    assert_eq!(marks.len(), occurrences, "one mark per finding");
    for m in marks {
        let row = rows
            .iter()
            .find(|r| r.0 == m[0])
            .unwrap_or_else(|| panic!("mark {m} has no mapping row"));
        assert_eq!(m[1], row.1.as_str());
        assert_eq!(m[2], 0, "tokens are reachable with Tab");
    }
    let colour_of = |t: &str| {
        marks
            .iter()
            .find(|m| m[1] == t)
            .map(|m| m[3].as_str().unwrap_or_default().to_owned())
            .unwrap_or_default()
    };
    assert_eq!(colour_of("IBAN"), "rgb(220, 252, 231)");
    assert_ne!(colour_of("IBAN"), colour_of("EMAIL_ADDRESS"));

    // Stats as the API words them.
    let stats = b
        .js("Array.from(document.querySelectorAll('#stats dd')).map(d => d.textContent)")
        .await;
    let s = &reference["stats"];
    assert_eq!(
        stats,
        json!([
            s["entityCount"].to_string(),
            s["uniqueTokens"].to_string(),
            format!("{} %", s["anonymizationRate"]),
            format!("{} %", s["dataLoss"])
        ])
    );

    // Keyboard focus on a token shows its type, score and original; Escape hides it.
    b.keys(&format!("{}{}{}", Key::Tab, Key::Tab, Key::Tab))
        .await;
    let focused = b
        .js("document.activeElement.matches('mark.tok') && document.activeElement.textContent")
        .await;
    let focused = focused.as_str().expect("a token has the focus").to_owned();
    let row = rows.iter().find(|r| r.0 == focused).expect("row").clone();
    let tip = b
        .wait_for(
            "!document.getElementById('tip').hidden && document.getElementById('tip').textContent",
            "tooltip on focus",
        )
        .await;
    let tip = tip.as_str().expect("tip text");
    assert!(
        tip.contains(&row.1) && tip.contains(&row.2) && tip.contains("Score"),
        "{tip}"
    );
    assert_eq!(
        b.js("document.activeElement.getAttribute('aria-describedby')")
            .await,
        "tip"
    );
    b.keys(&Key::Escape.to_string()).await;
    b.wait_for(
        "document.getElementById('tip').hidden",
        "Escape hides the tooltip",
    )
    .await;

    // Hover over the IBAN token shows its tooltip too; take the screenshot with it open.
    let iban_mark = b
        .el(&format!("#anon-output mark.tok[data-token='{}']", iban.0))
        .await;
    b.hover(iban_mark).await;
    let tip = b
        .wait_for(
            "!document.getElementById('tip').hidden && document.getElementById('tip').textContent",
            "tooltip on hover",
        )
        .await;
    assert!(tip.as_str().unwrap_or_default().contains(&iban.2), "{tip}");
    let shot = b.screenshot("web-screenshot.png").await;
    assert!(std::fs::metadata(&shot).expect("screenshot").len() > 10_000);

    // The tooltip can be hovered itself (to read or select it); leaving both hides it (the
    // IBAN token still has the keyboard focus, so its tooltip stays: use the e-mail token).
    b.hover(
        b.el("#anon-output mark.tok[data-type='EMAIL_ADDRESS']")
            .await,
    )
    .await;
    b.wait_for(
        "document.getElementById('tip').textContent.includes('EMAIL_ADDRESS')",
        "the e-mail tooltip",
    )
    .await;
    b.hover(b.el("#tip").await).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(b.js("document.getElementById('tip').hidden").await, false);
    b.hover(b.el("#anon-heading").await).await;
    b.wait_for(
        "document.getElementById('tip').hidden",
        "the tooltip to go when the pointer leaves",
    )
    .await;

    // Copy buttons.
    b.click_then_wait(
        "#copy-mapping",
        "document.getElementById('status').textContent === 'Mapping copied as JSON.'",
        "copy confirmation",
    )
    .await;
    b.click_then_wait(
        "#copy-text",
        "document.getElementById('status').textContent === 'Anonymized text copied.'",
        "copy confirmation",
    )
    .await;

    // The way back: an answer with tokens is restored through the session.
    let answer = format!(
        "Danke. Die Zahlung auf {} ist veranlasst; Nachricht an {}.",
        iban.0,
        rows.iter()
            .find(|r| r.1 == "EMAIL_ADDRESS")
            .expect("email row")
            .0
    );
    let restored_expected = format!(
        "Danke. Die Zahlung auf {} ist veranlasst; Nachricht an jonas.becker@example.de.",
        iban.2
    );
    type_into(&b, "#restore-input", &answer).await;
    b.keys(&(Key::Control + &Key::Enter.to_string())).await;
    b.wait_for(
        "!document.getElementById('restore-result').hidden",
        "restored text",
    )
    .await;
    assert_eq!(
        b.js("document.getElementById('restore-output').textContent")
            .await,
        restored_expected
    );

    // Delete session: a confirmation dialog first (Cancel keeps it), then a visible notice.
    let session_id = b.text("#session-id").await;
    b.click_then_wait(
        "#delete-session",
        "document.getElementById('confirm-delete').open",
        "the confirmation dialog",
    )
    .await;
    assert_eq!(b.text("#confirm-session").await, session_id);
    assert_eq!(b.js("document.activeElement.id").await, "confirm-no");
    b.keys(&Key::Escape.to_string()).await;
    b.wait_for(
        "!document.getElementById('confirm-delete').open",
        "dialog closed",
    )
    .await;
    assert_eq!(b.js("document.activeElement.id").await, "delete-session");
    assert!(
        b.js("document.getElementById('restore-notice').hidden")
            .await
            == true
    );

    b.keys(&Key::Enter.to_string()).await;
    b.wait_for(
        "document.getElementById('confirm-delete').open",
        "the dialog again",
    )
    .await;
    // Still keyboard only: from "Cancel" back to "Delete for good", Enter.
    b.keys(&(Key::Shift + &Key::Tab.to_string())).await;
    assert_eq!(b.js("document.activeElement.id").await, "confirm-yes");
    b.keys(&Key::Enter.to_string()).await;
    let notice = b
        .wait_for(
            "!document.getElementById('restore-notice').hidden && document.getElementById('restore-notice').textContent",
            "the deletion notice",
        )
        .await;
    assert!(
        notice.as_str().unwrap_or_default().contains("deleted"),
        "{notice}"
    );

    // Restoring now fails, with the API's own message.
    let not_found = api_message(
        &server,
        "/api/v1/deanonymize",
        json!({ "text": "x", "session_id": session_id }),
        404,
    );
    b.click_then_wait(
        "#restore-submit",
        "!document.getElementById('restore-error').hidden",
        "the error",
    )
    .await;
    assert_eq!(b.text("#restore-error .message").await, not_found);
    assert!(b
        .text("#restore-error .detail")
        .await
        .contains("session_not_found"));
    b.close().await;

    // Nothing of the letter, and not the tenant cookie, reached the server's log.
    let log = server.log();
    for secret in [
        "DE89",
        "jonas.becker",
        "Vogel",
        "86095742719",
        "Lindenallee",
    ] {
        assert!(!log.contains(secret), "{secret} in the log");
    }
}

/// The web policy of `proxy.toml` for the policy test: a deny term of its own type, a custom
/// recognizer, IBAN switched off, cards blocked.
fn web_policy_config() -> String {
    format!(
        r#"
[[api.keys]]
name = "ops"
sha256 = "{}"

[web]
policy = "kiosk"

[policies.kiosk]
types = ["PERSON", "EMAIL_ADDRESS", "CREDIT_CARD"]
actions = {{ CREDIT_CARD = "block" }}
allow = ["Tarnkappe GmbH"]

[[policies.kiosk.deny]]
type = "PROJEKT"
terms = ["Falke"]

[[policies.kiosk.recognizers]]
type = "KUNDENNUMMER"
prefix = "KUNDE"
regex = 'KD-[0-9]{{6}}'
"#,
        tarnkappe::config::hash_key(KEY)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tenants_policy_is_shown_and_a_custom_term_can_be_tried() {
    let _one = ONE_BROWSER_TEST_AT_A_TIME.lock().await;
    let server = TestServer::start_with_config(&[], &web_policy_config());
    let b = Browser::start(1280, 1400).await;
    goto_page(&b, &server).await;

    // The policy panel shows the tenant's policy (the web policy), not the key's default.
    let summary = b
        .wait_for(
            "document.getElementById('policy-summary').textContent",
            "the policy from GET /policy",
        )
        .await;
    let summary = summary.as_str().expect("summary").to_owned();
    assert!(summary.starts_with("Policy \"kiosk\": 5 types detected, 1 type blocks the request, 1 deny term, 1 custom recognizer, 1 allow entry"), "{summary}");
    let rows = b
        .js("Array.from(document.querySelectorAll('#policy-table tbody tr')).map(tr => Array.from(tr.cells).map(td => td.textContent))")
        .await;
    let rows = rows.as_array().expect("rows");
    let row = |t: &str| {
        rows.iter()
            .find(|r| r[0].as_str().is_some_and(|c| c.starts_with(t)))
            .cloned()
            .unwrap_or_else(|| panic!("no row {t}: {rows:?}"))
    };
    assert_eq!(
        row("CREDIT_CARD"),
        json!(["CREDIT_CARD", "[[KARTE_1]]", "0.50", "block"])
    );
    assert_eq!(
        row("PROJEKT"),
        json!(["PROJEKT (policy)", "[[PROJEKT_1]]", "0.50", "mask"])
    );
    assert!(!summary.contains("Falke") && !b.text("#policy-table").await.contains("Falke"));

    // A custom term for this text only, beside the policy's own term and recognizer.
    let text = "Projekt Falke bei Tarnkappe GmbH, Kunde KD-123456, intern Geheimsache Adler, IBAN DE89 3704 0044 0532 0130 00.";
    type_into(&b, "#anon-input", text).await;
    type_into(&b, "#anon-terms", " Geheimsache Adler , ").await;
    b.click_then_wait(
        "#anon-submit",
        "!document.getElementById('result').hidden",
        "the result",
    )
    .await;
    let shown = b
        .js("document.getElementById('anon-output').textContent")
        .await;
    assert_eq!(
        shown,
        "Projekt [[PROJEKT_1]] bei Tarnkappe GmbH, Kunde [[KUNDE_1]], intern [[TERM_1]], IBAN DE89 3704 0044 0532 0130 00."
    );
    let rows = mapping_rows(&b).await;
    let types: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(types, ["PROJEKT", "KUNDENNUMMER", "DENY_TERM"]);
    assert_eq!(rows[2].2, "Geheimsache Adler");
    let marks = b
        .js("document.querySelectorAll('#anon-output mark.tok').length")
        .await;
    assert_eq!(marks, 3, "custom tokens are highlighted like built-in ones");

    // Restoring goes through the session: custom tokens come back too.
    type_into(
        &b,
        "#restore-input",
        "Zu [[PROJEKT_1]] und [[TERM_1]]: [[KUNDE_1]].",
    )
    .await;
    b.click_then_wait(
        "#restore-submit",
        "!document.getElementById('restore-result').hidden",
        "restored",
    )
    .await;
    assert_eq!(
        b.text("#restore-output").await,
        "Zu Falke und Geheimsache Adler: KD-123456."
    );

    // A blocked type: the API's 422 in its own words, naming the type, never the value.
    type_into(&b, "#anon-terms", "").await;
    type_into(&b, "#anon-input", "Karte 4111 1111 1111 1111").await;
    b.click_then_wait(
        "#anon-submit",
        "!document.getElementById('anon-error').hidden",
        "the error",
    )
    .await;
    assert_eq!(
        b.text("#anon-error .message").await,
        "The text contains data of a type that this caller's policy blocks: CREDIT_CARD."
    );
    assert!(b
        .text("#anon-error .detail")
        .await
        .contains("policy_blocked"));
    b.screenshot("web-screenshot-policy.png").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_errors_are_shown_in_the_apis_words() {
    let _one = ONE_BROWSER_TEST_AT_A_TIME.lock().await;
    let server = TestServer::start(&[KEYS, ("TARNKAPPE_RATE_LIMIT", "3")]);
    let b = Browser::start(1024, 900).await;
    goto_page(&b, &server).await;

    // Reserved token.
    let reserved = api_message(
        &server,
        "/api/v1/anonymize",
        json!({ "text": "Hallo [[NAME_1]]" }),
        400,
    );
    type_into(&b, "#anon-input", "Hallo [[NAME_1]]").await;
    b.click_then_wait(
        "#anon-submit",
        "!document.getElementById('anon-error').hidden",
        "the error",
    )
    .await;
    assert_eq!(b.text("#anon-error .message").await, reserved);
    assert!(b
        .text("#anon-error .detail")
        .await
        .contains("reserved_token"));

    // Too large: the counter warns, the API refuses, the page shows its message.
    b.js("(() => { const t = document.getElementById('anon-input'); t.value = 'a'.repeat(100001); t.dispatchEvent(new Event('input')); return true; })()")
        .await;
    assert_eq!(
        b.text("#anon-count").await,
        "100001 / 100000 characters — over the limit"
    );
    b.click_then_wait("#anon-submit", 
        "document.querySelector('#anon-error .detail') && document.querySelector('#anon-error .detail').textContent.includes('too_large')",
        "too large",
    )
    .await;
    let too_large = blocking(|| {
        let resp = client()
            .post(server.url("/api/v1/anonymize"))
            .header("x-api-key", KEY)
            .json(&json!({ "text": "a".repeat(100_001) }))
            .send()
            .expect("call");
        assert_eq!(resp.status(), 413);
        let body: Value = resp.json().expect("json");
        body["message"].as_str().expect("message").to_owned()
    });
    assert_eq!(b.text("#anon-error .message").await, too_large);

    // Rate limited (3 per minute for this tenant; two calls were made above, so the second
    // of these is refused).
    type_into(&b, "#anon-input", "Kein Personenbezug.").await;
    let idle = "document.getElementById('anon-submit').getAttribute('aria-busy') !== 'true'";
    let refused = "(document.querySelector('#anon-error .detail') || {}).textContent || ''";
    for _ in 0..2 {
        b.wait_for(idle, "the previous request").await;
        b.el("#anon-submit").await.click().await.expect("anonymize");
        tokio::time::sleep(Duration::from_millis(100)).await;
        b.wait_for(idle, "the answer").await;
    }
    let detail = b.js(refused).await;
    assert!(
        detail.as_str().unwrap_or_default().contains("rate_limited"),
        "{detail}"
    );
    assert!(
        detail.as_str().unwrap_or_default().contains("try again in"),
        "{detail}"
    );
    let rate_limited = loop {
        let (status, body) = api_post(&server, "/api/v1/anonymize", json!({ "text": "" }));
        if status == 429 {
            break body["message"].as_str().expect("message").to_owned();
        }
        assert_eq!(status, 200, "{body}");
    };
    assert_eq!(b.text("#anon-error .message").await, rate_limited);
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_and_other_browsers_cannot_use_a_session() {
    let _one = ONE_BROWSER_TEST_AT_A_TIME.lock().await;
    let server = TestServer::start(&[KEYS]);
    let first = Browser::start(1024, 900).await;
    goto_page(&first, &server).await;
    type_into(&first, "#anon-input", "IBAN DE89 3704 0044 0532 0130 00").await;
    first
        .click_then_wait(
            "#anon-submit",
            "document.querySelectorAll('#anon-output mark.tok').length === 1",
            "one token",
        )
        .await;
    let session_id = first.text("#session-id").await;
    let token = first.text("#anon-output mark.tok").await;

    // The cookie is HttpOnly: page scripts cannot read it; WebDriver can.
    assert_eq!(first.js("document.cookie").await, "");
    let cookies = first.client.get_all_cookies().await.expect("cookies");
    let cookie = cookies
        .iter()
        .find(|c| c.name() == "tarnkappe_tenant")
        .expect("tenant cookie");
    assert_eq!(cookie.http_only(), Some(true));
    assert_eq!(format!("{:?}", cookie.same_site()), "Some(Strict)");
    let cookie_header = format!("tarnkappe_tenant={}", cookie.value());
    let own_origin = format!("http://{}", server.addr);
    let body = json!({ "text": format!("Zahlung an {token}."), "session_id": session_id });

    let call = |origin: Option<&str>, fetch_site: Option<&str>| {
        blocking(|| call_with_cookie(&server, &cookie_header, &body, origin, fetch_site))
    };
    // Control: the page's cookie from its own origin restores.
    let (status, ok) = call(Some(&own_origin), None);
    assert_eq!(status, 200, "{ok}");
    assert_eq!(ok["text"], "Zahlung an DE89 3704 0044 0532 0130 00.");
    let (status, ok) = call(None, Some("same-origin"));
    assert_eq!(status, 200, "{ok}");
    // The same cookie from another origin, or with no origin evidence at all, is refused.
    for (origin, site) in [
        (Some("http://evil.example"), None),
        (Some("http://evil.example"), Some("same-origin")),
        (Some("null"), None),
        (None, Some("cross-site")),
        (None, Some("same-site")),
        (None, None),
    ] {
        let (status, err) = call(origin, site);
        assert_eq!(status, 401, "origin {origin:?}, fetch site {site:?}: {err}");
        assert_eq!(err["error"], "unauthorized");
    }

    // A second browser profile is another tenant: the first one's session is not its own.
    let second = Browser::start(1024, 900).await;
    goto_page(&second, &server).await;
    let script = "const [path, method, body, done] = arguments; \
        fetch(path, {method, credentials: 'same-origin', headers: {'Content-Type': 'application/json'}, body}) \
          .then(r => r.json().then(j => done([r.status, j])), e => done([0, String(e)]));";
    let restore = json!(["/api/v1/deanonymize", "POST", body.to_string()]);
    let foreign = second
        .client
        .execute_async(script, restore.as_array().expect("args").clone())
        .await
        .expect("fetch in the second browser");
    assert_eq!(foreign[0], 404, "{foreign}");
    assert_eq!(foreign[1]["error"], "session_not_found");
    let delete = json!([
        format!("/api/v1/session/{session_id}"),
        "DELETE",
        Value::Null
    ]);
    let foreign = second
        .client
        .execute_async(script, delete.as_array().expect("args").clone())
        .await
        .expect("delete in the second browser");
    assert_eq!(foreign[0], 404, "{foreign}");

    // The first browser still restores its own session through the page.
    type_into(&first, "#restore-input", &format!("Zahlung an {token}.")).await;
    first
        .click_then_wait(
            "#restore-submit",
            "!document.getElementById('restore-result').hidden",
            "restored text",
        )
        .await;
    assert_eq!(
        first.text("#restore-output").await,
        "Zahlung an DE89 3704 0044 0532 0130 00."
    );
    second.close().await;
    first.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readable_on_a_phone_sized_screen() {
    let _one = ONE_BROWSER_TEST_AT_A_TIME.lock().await;
    let server = TestServer::start(&[KEYS]);
    let b = Browser::start(375, 812).await;
    goto_page(&b, &server).await;
    assert_eq!(b.js("window.innerWidth").await, 375);
    type_into(&b, "#anon-input", LETTER).await;
    b.click_then_wait(
        "#anon-submit",
        "document.querySelectorAll('#anon-output mark.tok').length > 0",
        "tokens",
    )
    .await;
    // Nothing forces sideways scrolling of the page (wide tables scroll in their own box).
    assert_eq!(
        b.js("document.documentElement.scrollWidth <= window.innerWidth")
            .await,
        true
    );
    let font = b
        .js("parseFloat(getComputedStyle(document.getElementById('anon-output')).fontSize)")
        .await;
    assert!(font.as_f64().unwrap_or_default() >= 14.0, "{font}");
    b.js("(document.getElementById('anon-output').scrollIntoView(), true)")
        .await;
    b.screenshot("web-screenshot-phone.png").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_from_another_site_keeps_the_browsers_tenant() {
    let _one = ONE_BROWSER_TEST_AT_A_TIME.lock().await;
    let server = TestServer::start(&[KEYS]);
    let b = Browser::start(1024, 900).await;
    goto_page(&b, &server).await;
    let tenant_cookie = |cookies: Vec<fantoccini::cookies::Cookie<'static>>| {
        cookies
            .iter()
            .find(|c| c.name() == "tarnkappe_tenant")
            .map(|c| c.value().to_owned())
            .expect("tenant cookie")
    };
    let before = tenant_cookie(b.client.get_all_cookies().await.expect("cookies"));

    // Another site links to the page. The SameSite=Strict cookie is not sent on that navigation;
    // the server must not hand out a new tenant in its place.
    let other_site = format!(
        "data:text/html,<a id=go href=\"{}\">Tarnkappe</a>",
        server.url("/")
    );
    b.client.goto(&other_site).await.expect("the other site");
    b.click_then_wait(
        "#go",
        "document.querySelectorAll('#legend li').length === 18",
        "the page after the reload",
    )
    .await;
    let after = tenant_cookie(b.client.get_all_cookies().await.expect("cookies"));
    assert_eq!(after, before, "same tenant after arriving through a link");
    b.close().await;
}
