#!/usr/bin/env bash
# Stops and removes dustd. Keeps /etc/dustd (configuration and key) and /var/lib/dustd (your data)
# unless --purge is given.
set -euo pipefail
PREFIX=${PREFIX:-/usr/local}
[ "$(id -u)" -eq 0 ] || exec sudo PREFIX="$PREFIX" "$0" "$@"

systemctl disable --now dustd.service 2>/dev/null || true
rm -f /etc/systemd/system/dustd.service
rm -f "$PREFIX/bin/dustd" "$PREFIX/bin/dustctl"
rm -rf "$PREFIX/share/finedust" "$PREFIX/share/doc/finedust"
systemctl daemon-reload

if [ "${1:-}" = "--purge" ]; then
    rm -rf /etc/dustd /var/lib/dustd
    rm -f /etc/sysusers.d/dustd.conf
    userdel dustd 2>/dev/null || true
    echo "dustd removed, with its configuration, key and data."
else
    echo "dustd removed. Kept /etc/dustd and /var/lib/dustd; run with --purge to delete them too."
fi
