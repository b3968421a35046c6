# Stands in for postgres:16-bookworm: Debian bookworm's PostgreSQL (15; the registry's image has
# 16), set up from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB on a first start, its data in
# /var/lib/postgresql/data, `pg_isready` and the server programs on PATH.
FROM arbiter-local/bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-common \
 && sed -ri 's/#(create_main_cluster) .*$/\1 = false/' /etc/postgresql-common/createcluster.conf \
 && apt-get install -y --no-install-recommends postgresql \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s /usr/lib/postgresql/*/bin /usr/lib/postgresql/bin \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql
ENV PATH=/usr/lib/postgresql/bin:$PATH PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
