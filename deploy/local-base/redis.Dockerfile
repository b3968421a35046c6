# Stands in for redis:7-bookworm: Debian bookworm's Redis 7, run as `redis` in /data, protected
# mode off unless asked for (the registry's image is built with it off: a container's port is only
# reached through the networks it is put on).
FROM arbiter-local/bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
