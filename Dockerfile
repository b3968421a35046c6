# Arbiter: one image for the server and every bot.
# The browser client's msgpack library comes from npm in a build stage; the numba cache is built
# at image build time (`arbiter warm`), so no container compiles kernels while a clock runs.

FROM node:20-bookworm-slim AS web
WORKDIR /build
COPY server/package.json server/package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/opt/arbiter/numba-cache \
    ARBITER_NODE_MODULES=/opt/arbiter/node_modules
WORKDIR /opt/arbiter
COPY pyproject.toml README.md ./
COPY src ./src
COPY protocol ./protocol
COPY engine ./engine
COPY server ./server
COPY bots ./bots
# The four parts and the root distribution that joins them, in one call (each part's dependency on
# another is met by its folder, never looked up in a package index).
RUN pip install --no-cache-dir ./protocol ./engine ./server ./bots . \
 && arbiter warm \
 && useradd --system --home /var/lib/arbiter --create-home arbiter \
 && mkdir -p /data /tokens && chown arbiter /data /tokens \
 && chmod -R a+rX /opt/arbiter
COPY --from=web /build/node_modules ./node_modules
USER arbiter
# Named volumes mounted on /data and /tokens start owned by `arbiter`, as these folders are.
VOLUME ["/data", "/tokens"]
EXPOSE 8765
CMD ["arbiter", "serve", "--host", "0.0.0.0", "--port", "8765", "--db", "/data/arbiter.db"]
