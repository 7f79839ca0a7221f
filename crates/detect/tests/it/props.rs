//! Property tests: on arbitrary input the engine never panics, and findings are in bounds, on
//! code-point offsets, sorted and disjoint, with scores in [0, 1]. (That anonymize → restore
//! is exact on the same inputs is the token layer's property: the service's
//! `tests/it/tokens_props.rs`.)

use proptest::prelude::*;

use crate::harness::detector;
use crate::harness::textish::textish;

fn check(text: &str) -> Result<(), TestCaseError> {
    let findings = detector().detect(text);
    let n = text.chars().count();
    let mut prev_end = 0;
    for f in &findings {
        prop_assert!(f.start < f.end, "empty finding {f:?}");
        prop_assert!(f.end <= n, "out of bounds {f:?} for {n} code points");
        prop_assert!(f.start >= prev_end, "overlap or unsorted at {f:?}");
        prop_assert!((0.0..=1.0).contains(&f.score));
        prev_end = f.end;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_unicode(text in "\\PC{0,200}") {
        check(&text)?;
    }

    #[test]
    fn entity_like_text(text in textish()) {
        check(&text)?;
    }
}
