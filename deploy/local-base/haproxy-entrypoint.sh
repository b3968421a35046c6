#!/bin/sh
# haproxy in master-worker mode, in the foreground, logging to the container's output.
set -e
[ "${1#-}" != "$1" ] && set -- haproxy "$@"
if [ "$1" = haproxy ]; then
  shift
  set -- haproxy -W -db "$@"
fi
exec "$@"
