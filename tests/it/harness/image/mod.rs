//! Reading the Dockerfile and `.dockerignore`, and building what they build without a container
//! engine (none can pull base images on the CI machines), for `ops_image` and the manifest checks
//! of `ops_deploy`.

pub mod assemble;
pub mod dockerfile;
pub mod ignore;

pub use assemble::{build_runner, in_root, ImageBuild};
pub use dockerfile::{CommandForm, Stage};

use std::path::Path;

/// The repository root (the build context of `docker build .`).
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's Dockerfile and `.dockerignore`, parsed.
pub fn repo_image() -> ImageBuild {
    ImageBuild::load(repo_root()).unwrap_or_else(|e| panic!("{e}"))
}

/// The numeric user id the image runs as (`USER 10001` or `USER 10001:10001`).
pub fn image_uid(stage: &Stage) -> Option<u32> {
    stage.user()?.split(':').next()?.parse().ok()
}
