use tarnkappe::detect::Detector;
#[test]
fn dbg() {
    let d = Detector::new();
    for t in ["am 12.03.2024 um", "geb. 05.11.1987", "2024-03-12", "12. März 2024"] {
        println!("{t:?} -> {:?}", d.detect(t));
    }
}
