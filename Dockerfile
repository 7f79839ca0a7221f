# Tarnkappe — container image.
#
#   docker build -t tarnkappe .
#   docker run --rm -p 8080:8080 --read-only --cap-drop ALL --security-opt no-new-privileges \
#     -e TARNKAPPE_API_KEYS=team-a:change-me tarnkappe
#
# Stage 1 builds the profile-guided release binary (scripts/pgo/build: an instrumented build run
# on training traffic, then the optimised build; docs/performance.md#profile-guided-build): pingora's
# zlib-ng build needs cmake, the training python3, the profile merge llvm-tools. Stage 2 is a slim
# Debian with only the binary, the default configuration and CA certificates (for https
# upstreams), running as an unprivileged user. The service writes no files, so the root
# filesystem may be read-only. No HEALTHCHECK: orchestrators probe GET /api/v1/health (alive)
# and GET /api/v1/health/ready (store reachable), and the slim image has no HTTP client.
#
# tests/it/ops_image.rs builds what this file builds (its COPY lines, .dockerignore, the build
# script of its RUN line) and starts the result with this CMD and ENV.

# Pinned to the release compiler of Cargo.toml's `release-rustc` (docs/development.md#toolchain).
FROM rust:1.97.1-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends cmake python3 \
 && rm -rf /var/lib/apt/lists/* \
 && rustup component add llvm-tools
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs proxy.toml openapi.json ./
COPY src ./src
# The workspace's library crates: the detection engine with its data (crates/detect/data/:
# gazetteers, tagger tables and weights, compiled in), copied whole so that a new data file
# cannot be left out.
COPY crates ./crates
COPY benches ./benches
# The build script and its own training texts (scripts/pgo/texts/).
COPY scripts/compiler-guard.sh ./scripts/
COPY scripts/pgo ./scripts/pgo
RUN scripts/pgo/build \
 && strip target/pgo/tarnkappe

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 tarnkappe \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin tarnkappe
COPY --from=build /src/target/pgo/tarnkappe /usr/local/bin/tarnkappe
COPY proxy.toml /etc/tarnkappe/proxy.toml
# Attribution of the compiled-in data (GeoNames, CC BY 4.0) travels with the binary.
COPY NOTICE /usr/share/doc/tarnkappe/NOTICE
# Inside a container the listener must face the container network; everything else comes from
# /etc/tarnkappe/proxy.toml (mount your own) and TARNKAPPE_* variables.
ENV TARNKAPPE_LISTEN=0.0.0.0:8080
EXPOSE 8080
USER 10001:10001
ENTRYPOINT ["/usr/local/bin/tarnkappe"]
CMD ["serve", "--config", "/etc/tarnkappe/proxy.toml"]
