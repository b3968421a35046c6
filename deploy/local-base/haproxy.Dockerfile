# Stands in for haproxy:2.6-bookworm: Debian bookworm's HAProxy 2.6, run as `haproxy` in the
# foreground with its configuration at /usr/local/etc/haproxy/haproxy.cfg, as the registry's.
FROM arbiter-local/bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /usr/local/etc/haproxy /var/lib/haproxy && chown haproxy:haproxy /var/lib/haproxy
COPY haproxy-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
USER haproxy
WORKDIR /var/lib/haproxy
STOPSIGNAL SIGUSR1
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
