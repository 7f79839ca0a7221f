//! Fuzz target for the detector's matching view (src/detect/view.rs): any UTF-8 input gives a
//! view without panicking; every range of the view maps to a non-empty range of char
//! boundaries of the original, and the mapping never goes backwards.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tarnkappe::detect::View;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let view = View::new(text);
    let v = view.as_str();
    if view.is_original() {
        assert_eq!(v, text);
    }
    let cuts: Vec<usize> = (0..=v.len()).filter(|&i| v.is_char_boundary(i)).collect();
    let (mut last_start, mut last_end) = (0, 0);
    for pair in cuts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (start, end) = (view.start_in_original(a), view.end_in_original(b));
        assert!(text.is_char_boundary(start) && text.is_char_boundary(end));
        assert!(start < end && end <= text.len(), "{a}..{b} -> {start}..{end}");
        assert!(start >= last_start && end >= last_end);
        (last_start, last_end) = (start, end);
    }
});
