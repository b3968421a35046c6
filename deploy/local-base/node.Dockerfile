# Stands in for node:20-bookworm-slim in the image's build stage, which only runs `npm ci`:
# Debian bookworm's Node.js and npm (Node 18; the registry's image has 20).
FROM arbiter-local/bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
CMD ["node"]
