//! Placeholder while the browser tests are written.
#[test]
fn placeholder() {
    let _ =
        fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
}
