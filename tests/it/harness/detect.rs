//! The detection engine for the token layer's tests: one shared `Detector` per test run
//! (building one loads every gazetteer and table). The engine's own tests are the detection
//! crate's (`crates/detect/tests/it/`).

use std::sync::OnceLock;

use tarnkappe::detect::Detector;

pub fn detector() -> &'static Detector {
    static D: OnceLock<Detector> = OnceLock::new();
    D.get_or_init(Detector::new)
}
