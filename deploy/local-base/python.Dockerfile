# Stands in for python:3.11-slim-bookworm: Debian's own Python 3.11, with pip free to install into
# /usr/local as in the registry's image (which has no EXTERNALLY-MANAGED marker either).
FROM arbiter-local/bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-pip python3-venv python-is-python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/* /usr/lib/python3.*/EXTERNALLY-MANAGED
ENV LANG=C.UTF-8
CMD ["python3"]
