# Arbiter: one image for the server and every bot.
# The browser client's msgpack library comes from npm in a build stage; the numba cache is built
# at image build time (`arbiter warm`), so no container compiles kernels while a clock runs.
# Behind a TLS-intercepting proxy, pass its CA certificates (PEM text) for the build's downloads:
#   CA_BUNDLE="$(cat proxy-ca.pem)" docker compose build    (docker-compose.yml passes it on)
#   docker build --build-arg CA_BUNDLE="$(cat proxy-ca.pem)" .
# npm and pip trust them besides the usual roots, during the build only: no file of them is left.

FROM node:20-bookworm-slim AS web
ARG CA_BUNDLE=""
WORKDIR /build
COPY server/package.json server/package-lock.json ./
RUN printf '%s' "$CA_BUNDLE" > /tmp/ca.pem \
 && env ${CA_BUNDLE:+NODE_EXTRA_CA_CERTS=/tmp/ca.pem} npm ci --omit=dev --no-audit --no-fund \
 && rm /tmp/ca.pem

FROM python:3.11-slim-bookworm
ARG CA_BUNDLE=""
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/opt/arbiter/numba-cache \
    ARBITER_NODE_MODULES=/opt/arbiter/node_modules
WORKDIR /opt/arbiter
# Named volumes mounted on /data and /tokens start owned by `arbiter`, as these folders are; the
# numba cache is its own too, so the bots' check that it can be written passes.
RUN useradd --system --home /var/lib/arbiter --create-home arbiter \
 && mkdir -p /data /tokens "$NUMBA_CACHE_DIR" && chown arbiter /data /tokens "$NUMBA_CACHE_DIR"
# First the four parts' dependencies, from their pyproject.toml files alone: a layer that an edit to
# the sources leaves cached, so a rebuild downloads nothing. Each part's dependency on another is met
# by its folder, never looked up in a package index.
COPY protocol/pyproject.toml protocol/README.md ./protocol/
COPY engine/pyproject.toml engine/README.md ./engine/
COPY server/pyproject.toml server/README.md ./server/
COPY bots/pyproject.toml bots/README.md ./bots/
RUN cat /etc/ssl/certs/ca-certificates.crt > /tmp/ca.pem && printf '%s\n' "$CA_BUNDLE" >> /tmp/ca.pem \
 && env ${CA_BUNDLE:+PIP_CERT=/tmp/ca.pem} pip install --no-cache-dir ./protocol ./engine "./server[uvloop]" ./bots \
 && rm -rf /tmp/ca.pem ./*/build ./*/*.egg-info
# Then the parts themselves and the root distribution that joins them.
COPY pyproject.toml README.md ./
COPY src ./src
COPY protocol ./protocol
COPY engine ./engine
COPY server ./server
COPY bots ./bots
RUN cat /etc/ssl/certs/ca-certificates.crt > /tmp/ca.pem && printf '%s\n' "$CA_BUNDLE" >> /tmp/ca.pem \
 && env ${CA_BUNDLE:+PIP_CERT=/tmp/ca.pem} pip install --no-cache-dir --no-deps --force-reinstall \
    ./protocol ./engine ./server ./bots . \
 && rm /tmp/ca.pem \
 && chmod -R a+rX /opt/arbiter
COPY --from=web /build/node_modules ./node_modules
USER arbiter
# Compiled by the user every container runs as: numba finds each kernel cached for these very
# files and loads it, writing nothing (tests/run/test_compose_up.py checks the containers' diffs).
RUN arbiter warm
VOLUME ["/data", "/tokens"]
EXPOSE 8765
CMD ["arbiter", "serve", "--host", "0.0.0.0", "--port", "8765", "--db", "/data/arbiter.db"]
