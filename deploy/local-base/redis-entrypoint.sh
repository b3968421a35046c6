#!/bin/sh
# redis-server as `redis`, protected mode off unless the command line sets it.
set -e
[ "${1#-}" != "$1" ] && set -- redis-server "$@"
if [ "$1" = redis-server ]; then
  case " $* " in *" --protected-mode "*) ;; *) set -- "$@" --protected-mode no ;; esac
  [ "$(id -u)" = 0 ] && exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
