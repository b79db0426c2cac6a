# syntax=docker/dockerfile:1
# Gyoku's server in a small image: the binary built in a Rust image, then copied alone into
# Debian's slim one (glibc and nothing else it needs). Build and run (docs/operations.md):
#
#   docker build -t gyoku .
#   docker run -d --init -p 4081:4081 -p 8080:8080 -v gyoku-data:/var/lib/gyoku gyoku
#
# The bases are arguments so that a machine with no registry can build from images of its
# own (CI does: .ci/container).
ARG RUST_IMAGE=docker.io/library/rust:1-slim-bookworm
ARG BASE_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY . .
# The registry and the target directory are caches of the builder's, not layers: a second
# build recompiles only what changed, and neither ends up in an image.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p gyoku-cli \
    && install -D -m 0755 target/release/gyoku /out/gyoku

FROM ${BASE_IMAGE}
COPY --from=build /out/gyoku /usr/local/bin/gyoku
# A user of its own (no login, no shell), owning the data directory and nothing else.
RUN groupadd --system --gid 10001 gyoku \
    && useradd --system --uid 10001 --gid gyoku --home-dir /var/lib/gyoku \
        --shell /usr/sbin/nologin gyoku \
    && install -d -m 0750 -o gyoku -g gyoku /var/lib/gyoku
USER gyoku
WORKDIR /var/lib/gyoku
# The database (SQLite by default), the record files and the secrets the server keeps.
VOLUME ["/var/lib/gyoku"]
# The CSA port; the web page and the HTTP API. Add `--metrics 0.0.0.0:9100` for Prometheus.
EXPOSE 4081 8080
# SIGTERM suspends the games being played and writes every record before the server exits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/gyoku"]
CMD ["serve", "--csa", "0.0.0.0:4081", "--http", "0.0.0.0:8080", "--data-dir", "/var/lib/gyoku"]
