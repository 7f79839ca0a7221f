//! The detection crate's integration tests, one binary (the service's `tests/it` pattern): each
//! module covers one area of the engine through its public API only, with the shared
//! [`harness`]. Run one area with `cargo test -p tarnkappe-detect --test it <module>::`.

mod harness;

mod names;
mod probes;
mod props;
mod recognizers;
mod records;
