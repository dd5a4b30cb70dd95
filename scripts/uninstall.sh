#!/usr/bin/env bash
# Stops and removes a source install of dustd (scripts/install.sh), with its man pages and
# completions. Keeps /etc/dustd (configuration and key) and /var/lib/dustd (your data) unless
# --purge is given. The Debian package is removed with apt remove / apt purge instead.
set -euo pipefail
PREFIX=${PREFIX:-/usr/local}
[ "$(id -u)" -eq 0 ] || exec sudo PREFIX="$PREFIX" "$0" "$@"
if dpkg-query -W -f='${Status}' finedust 2>/dev/null | grep -q 'ok installed'; then
    echo "uninstall.sh: dustd is installed by the Debian package finedust: sudo apt remove finedust (apt purge also deletes the data, the key and the user)." >&2
    exit 1
fi

systemctl disable --now dustd.service 2>/dev/null || true
rm -f /etc/systemd/system/dustd.service
rm -f "$PREFIX/bin/dustd" "$PREFIX/bin/dustctl"
rm -rf "$PREFIX/share/finedust" "$PREFIX/share/doc/finedust"
rm -f "$PREFIX/share/man/man1/dustctl.1.gz" "$PREFIX/share/man/man8/dustd.8.gz"
for tool in dustctl dustd; do
    rm -f "$PREFIX/share/bash-completion/completions/$tool" "$PREFIX/share/fish/vendor_completions.d/$tool.fish" \
        "$PREFIX/share/zsh/site-functions/_$tool"
    [ "$PREFIX" != /usr ] || rm -f "/usr/share/zsh/vendor-completions/_$tool"
done
# Only where systemd runs (not in a chroot or a container without it).
if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

if [ "${1:-}" = "--purge" ]; then
    rm -rf /etc/dustd /var/lib/dustd
    rm -f /etc/sysusers.d/dustd.conf
    userdel dustd 2>/dev/null || true
    groupdel dustd 2>/dev/null || true   # userdel keeps it when others joined it (usermod -aG)
    echo "dustd removed, with its configuration, key and data."
else
    echo "dustd removed. Kept /etc/dustd and /var/lib/dustd; run with --purge to delete them too."
fi
