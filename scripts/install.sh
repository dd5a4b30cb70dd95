#!/usr/bin/env bash
# Builds release binaries and installs dustd as a sandboxed systemd service.
#
#   scripts/install.sh              build as you, then install with sudo
#   PREFIX=/opt/finedust scripts/install.sh
#
# Installs: $PREFIX/bin/{dustd,dustctl}, /etc/systemd/system/dustd.service,
# /etc/sysusers.d/dustd.conf (user and group dustd), /etc/dustd/dustd.yaml (only if absent),
# $PREFIX/share/finedust/Fixtures (for dustctl demo), $PREFIX/share/doc/finedust/README.md.
# It never asks for, reads or stores the service key: see README, "Run it as a service".
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}

if [ "${1:-}" != "--from-build" ]; then
    echo "Building release binaries (this takes a few minutes)…"
    swift build -c release --static-swift-stdlib --product dustd
    swift build -c release --static-swift-stdlib --product dustctl
    bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
    if [ "$(id -u)" -ne 0 ]; then
        exec sudo PREFIX="$PREFIX" "$0" --from-build "$bin"
    fi
    set -- --from-build "$bin"
fi
bin=$2
[ "$(id -u)" -eq 0 ] || { echo "install.sh: the install step needs root" >&2; exit 77; }

install -d -m 0755 "$PREFIX/bin" "$PREFIX/share/finedust" "$PREFIX/share/doc/finedust"
install -s -m 0755 "$bin/dustd" "$bin/dustctl" "$PREFIX/bin/"
rm -rf "$PREFIX/share/finedust/Fixtures"
cp -R Fixtures "$PREFIX/share/finedust/Fixtures"
install -m 0644 README.md "$PREFIX/share/doc/finedust/README.md"

install -d -m 0755 /etc/sysusers.d
install -m 0644 systemd/dustd.sysusers /etc/sysusers.d/dustd.conf
systemd-sysusers /etc/sysusers.d/dustd.conf

sed "s|/usr/local/|$PREFIX/|g" systemd/dustd.service > /etc/systemd/system/dustd.service
chmod 0644 /etc/systemd/system/dustd.service

install -d -m 0755 /etc/dustd
if [ ! -e /etc/dustd/dustd.yaml ]; then
    install -m 0640 -o root -g dustd Config/dustd.yaml /etc/dustd/dustd.yaml
    echo "Installed /etc/dustd/dustd.yaml: set station.name to your nearest station."
else
    echo "Kept the existing /etc/dustd/dustd.yaml."
fi

systemctl daemon-reload
cat <<NEXT

dustd is installed. Next:
  1. Set station.name in /etc/dustd/dustd.yaml (find one: dustctl stations nearest --lat 37.57 --lon 126.98).
  2. Install your AirKorea service key without putting it on a command line; paste it, then Ctrl-D:
       sudo sh -c 'umask 077; cat > /etc/dustd/airkorea-service-key'
  3. sudo systemctl enable --now dustd
  4. journalctl -u dustd -f      and later      dustctl today
     (add yourself to the dustd group to read the database without sudo: sudo usermod -aG dustd "\$USER")
NEXT
