#!/usr/bin/env bash
# Builds release binaries and installs dustd as a sandboxed systemd service (a source install;
# scripts/package-deb.sh makes a Debian package of the same files instead).
#
#   scripts/install.sh              build as you, then install with sudo
#   PREFIX=/opt/finedust scripts/install.sh
#   SCRATCH_PATH=.build-release scripts/install.sh      (SwiftPM's --scratch-path; default .build)
#
# Installs: $PREFIX/bin/{dustd,dustctl}, /etc/systemd/system/dustd.service,
# /etc/sysusers.d/dustd.conf (user and group dustd), /etc/dustd/dustd.yaml (only if absent),
# $PREFIX/share/finedust/Fixtures (for dustctl demo), $PREFIX/share/doc/finedust/README.md,
# the man pages dustctl(1) and dustd(8) and bash, zsh and fish completions under $PREFIX/share.
# It never asks for, reads or stores the service key: see README, "Run it as a service".
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}

if [ "${1:-}" != "--from-build" ]; then
    echo "Building release binaries, man pages and completions (this takes a few minutes)…"
    scratch=${SCRATCH_PATH:-.build}
    bin=$(packaging/build-release.sh "$scratch")
    extras="$scratch/finedust-extras"
    if [ "$(id -u)" -ne 0 ]; then
        exec sudo PREFIX="$PREFIX" "$0" --from-build "$bin" "$extras"
    fi
    set -- --from-build "$bin" "$extras"
fi
bin=$2
extras=$3
[ "$(id -u)" -eq 0 ] || { echo "install.sh: the install step needs root" >&2; exit 77; }
if dpkg-query -W -f='${Status}' finedust 2>/dev/null | grep -q 'ok installed'; then
    echo "install.sh: the Debian package finedust is installed; a source install would shadow its unit. Remove it first: sudo apt remove finedust" >&2
    exit 1
fi

install -d -m 0755 "$PREFIX/bin" "$PREFIX/share/finedust" "$PREFIX/share/doc/finedust"
install -s -m 0755 "$bin/dustd" "$bin/dustctl" "$PREFIX/bin/"
rm -rf "$PREFIX/share/finedust/Fixtures"
cp -R Fixtures "$PREFIX/share/finedust/Fixtures"
install -m 0644 README.md "$PREFIX/share/doc/finedust/README.md"

# Man pages and completions where man-db, bash-completion, zsh and fish look under /usr/local
# (Debian's zsh reads /usr/share/zsh/vendor-completions for packages, site-functions otherwise).
zsh_dir="$PREFIX/share/zsh/site-functions"
[ "$PREFIX" != /usr ] || zsh_dir=/usr/share/zsh/vendor-completions
install -d -m 0755 "$PREFIX/share/man/man1" "$PREFIX/share/man/man8" \
    "$PREFIX/share/bash-completion/completions" "$zsh_dir" "$PREFIX/share/fish/vendor_completions.d"
install -m 0644 "$extras/man/man1/dustctl.1.gz" "$PREFIX/share/man/man1/"
install -m 0644 "$extras/man/man8/dustd.8.gz" "$PREFIX/share/man/man8/"
for tool in dustctl dustd; do
    install -m 0644 "$extras/bash/$tool" "$PREFIX/share/bash-completion/completions/$tool"
    install -m 0644 "$extras/zsh/_$tool" "$zsh_dir/_$tool"
    install -m 0644 "$extras/fish/$tool.fish" "$PREFIX/share/fish/vendor_completions.d/$tool.fish"
done

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

# Only where systemd runs (not in a chroot or a container without it).
if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
cat <<NEXT

dustd is installed, not enabled or started: it needs your AirKorea service key first. Next:
  1. Install the key without putting it on a command line; paste it, Enter, then Ctrl-D:
       sudo sh -c 'umask 077; cat > /etc/dustd/airkorea-service-key'
  2. Set station.name in /etc/dustd/dustd.yaml (e.g. 종로구): sudoedit /etc/dustd/dustd.yaml
     To find the station nearest you (the list needs the key):
       sudo env DUSTD_API_SERVICE_KEY_FILE=/etc/dustd/airkorea-service-key dustctl stations sync --db /root/stations.sqlite
       sudo dustctl stations nearest --lat 37.57 --lon 126.98 --db /root/stations.sqlite
  3. sudo systemctl enable --now dustd
  4. journalctl -u dustd -f      and later      dustctl today
     (add yourself to the dustd group to read the database without sudo: sudo usermod -aG dustd "\$USER")
More: man dustd, man dustctl, $PREFIX/share/doc/finedust/README.md
NEXT
