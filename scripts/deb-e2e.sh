#!/usr/bin/env bash
# End-to-end test of the Debian package: lintian, then install, use, remove and purge it in a
# clean Debian root (a debootstrap --variant=minbase chroot of this machine's release, with
# systemd and man-db, cached as a tarball in /var/cache/finedust-e2e/).
#
#   sudo scripts/deb-e2e.sh                       builds the package with scripts/package-deb.sh
#   sudo scripts/deb-e2e.sh finedust_0.3.0_amd64.deb
#   sudo E2E_REFRESH=1 scripts/deb-e2e.sh         rebuilds the cached chroot
#
# Needs root, lintian and, the first time (or with E2E_REFRESH=1), debootstrap and the Debian
# mirror apt uses (E2E_MIRROR overrides it). Exit 0: passed; 1: failed; 77: this machine cannot run it.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
say() { printf 'deb-e2e: %s\n' "$*" >&2; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }
phase() { say "[$((SECONDS - started)) s] $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mounts, debootstrap): sudo $0"
for tool in dpkg-deb unshare chroot tar; do
    command -v "$tool" >/dev/null || skip "$tool is missing."
done
command -v lintian >/dev/null || skip "lintian is missing: apt-get install -y lintian"

# The package under test.
if [ $# -ge 1 ]; then
    deb=$(realpath "$1")
else
    phase "building the package (scripts/package-deb.sh)"
    deb=$(scripts/package-deb.sh | tail -1)
fi
[ -f "$deb" ] || fail "no package at $deb."
version=$(dpkg-deb -f "$deb" Version)

phase "lintian $(basename "$deb")"
# Warnings fail too: the ones that are wrong for this package are overridden, with the reason,
# in packaging/lintian-overrides.
lintian --fail-on error,warning --display-info "$deb" ||
    fail "lintian found errors or warnings (above)."

# The clean root: a cached minbase chroot of the same release as this machine.
. /etc/os-release
codename=${VERSION_CODENAME:?/etc/os-release names no VERSION_CODENAME}
arch=$(dpkg --print-architecture)
cache=/var/cache/finedust-e2e
tarball=$cache/$ID-$codename-$arch-minbase-systemd-man-db.tar.gz

# The URI apt is configured with for a suite ($codename, $codename-security…), from one-line
# (sources.list, *.list) and deb822 (*.sources) entries.
configured_uri() {
    local suite=$1 file
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v suite="$suite" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
            if ($(i + 1) == suite) { print $i; exit } }' "$file"
    done
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v suite="$suite" 'BEGIN { RS = ""; FS = "\n" }
            { uri = ""; ok = 0; deb = 0
              for (n = 1; n <= NF; n++) {
                  if ($n ~ /^URIs:/) { split($n, a, /[ \t]+/); uri = a[2] }
                  if ($n ~ /^Types:/ && $n ~ /[ \t]deb([ \t]|$)/) deb = 1
                  if ($n ~ /^Suites:/) { m = split($n, s, /[ \t]+/); for (k = 2; k <= m; k++) if (s[k] == suite) ok = 1 }
                  if ($n ~ /^Enabled:[ \t]*no/) ok = 0 }
              if (ok && deb && uri != "") { print uri; exit } }' "$file"
    done
}

# Without a way to build the chroot: the cached one if there is one (E2E_REFRESH), else exit 77.
cannot_build() {
    if [ -s "$tarball" ]; then
        say "cannot rebuild the chroot ($*); using the cached one."
    else
        skip "no cached chroot ($tarball), and $*"
    fi
}

build_chroot() {
    command -v debootstrap >/dev/null || { cannot_build "debootstrap is missing: apt-get install -y debootstrap"; return; }
    local mirror=${E2E_MIRROR:-$(configured_uri "$codename" | head -1)}
    [ -n "$mirror" ] || { cannot_build "apt has no mirror for $codename configured (set E2E_MIRROR)"; return; }
    mirror=${mirror%/}
    local probe
    probe=$(mktemp)
    if ! timeout 30 /usr/lib/apt/apt-helper download-file "$mirror/dists/$codename/Release" "$probe" >/dev/null 2>&1; then
        rm -f "$probe"
        cannot_build "the Debian mirror $mirror cannot be reached"
        return
    fi
    rm -f "$probe"
    local dir
    dir=$(mktemp -d /var/tmp/finedust-e2e-chroot.XXXXXX)
    chmod 0755 "$dir"
    phase "debootstrap --variant=minbase $codename from $mirror (cached for later runs)"
    debootstrap --variant=minbase --include=systemd,man-db "$codename" "$dir" "$mirror" >&2 ||
        { rm -rf "$dir"; cannot_build "debootstrap failed (above)"; return; }
    # Updates and security updates too, from wherever this machine gets them, so the chroot's
    # libraries are the ones the package was built against.
    local suite uri
    for suite in "$codename" "$codename-updates" "$codename-security"; do
        uri=$(configured_uri "$suite" | head -1)
        [ "$suite" != "$codename" ] || uri=$mirror
        [ -z "$uri" ] || echo "deb ${uri%/} $suite main"
    done > "$dir/etc/apt/sources.list"
    cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
    # Nothing in the chroot starts services.
    printf '#!/bin/sh\nexit 101\n' > "$dir/usr/sbin/policy-rc.d"
    chmod 0755 "$dir/usr/sbin/policy-rc.d"
    # The libraries the package depends on are downloaded now, so later runs need no network.
    local depends
    depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' | grep . | tr '\n' ' ')
    unshare --mount --propagation private -- bash -c '
        set -e
        mount -t proc proc "$1/proc"
        mount --rbind /dev "$1/dev"
        chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive bash -c "
            apt-get -q update && apt-get -qy upgrade && apt-get -qy install --download-only $2"
    ' bash "$dir" "$depends" >&2 || { rm -rf "$dir"; cannot_build "apt in the new chroot failed (above)"; return; }
    mkdir -p "$cache"
    tar -C "$dir" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$dir"
}

if [ -n "${E2E_REFRESH:-}" ] || [ ! -s "$tarball" ]; then
    build_chroot
fi

root=$(mktemp -d /var/tmp/finedust-e2e.XXXXXX)
chmod 0755 "$root"
cleanup() {
    # The mounts lived in the unshared namespace, which is gone; refuse to delete through one anyway.
    if awk -v under="$root/" 'index($2, under) == 1 { found = 1 } END { exit !found }' /proc/self/mounts; then
        say "mounts remain under $root; not deleting it."
    else
        rm -rf "$root"
    fi
}
trap cleanup EXIT
phase "unpacking the cached chroot $tarball"
tar -C "$root" -xzf "$tarball"
cp "$deb" "$root/root/"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# The test itself, run as root inside the chroot.
cat > "$root/root/deb-e2e-inside.sh" <<'INSIDE'
set -euo pipefail
deb=$1 version=$2
unit=/lib/systemd/system/dustd.service
# A failed check is reported and the test goes on, so one run shows every problem; the steps
# the rest depends on (install, remove, purge) end it at once.
failures=0
check() { local what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what" >&2; failures=$((failures + 1)); fi; }
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
user_exists() { getent passwd dustd >/dev/null; }
enabled_link=/etc/systemd/system/multi-user.target.wants/dustd.service

# What the root holds before the package, to compare with after the purge.
snapshot() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /root \
        -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/log \) -prune \
        -o -print | LC_ALL=C sort
}
snapshot > /root/before

export DEBIAN_FRONTEND=noninteractive
apt-get -qy install "/root/$deb" > /root/install.log 2>&1 ||
    { apt-get -q update > /dev/null && apt-get -qy install "/root/$deb" > /root/install.log 2>&1; } ||
    { cat /root/install.log >&2; echo "FAIL apt-get install ./$deb" >&2; exit 1; }
echo "ok   apt-get install ./$deb"
check "postinst prints the steps to install the key" grep -q "airkorea-service-key" /root/install.log
check "dustctl --version is $version" test "$(dustctl --version)" = "$version"
check "dustd --version is $version" test "$(dustd --version)" = "$version"
check "user dustd with home /var/lib/dustd" test "$(getent passwd dustd | cut -d: -f6)" = /var/lib/dustd
check "/etc/dustd/dustd.yaml is a conffile" sh -c "dpkg-query -W -f='\${Conffiles}' finedust | grep -q '/etc/dustd/dustd.yaml '"
check "the unit is not enabled" absent "$enabled_link"
check "man -w dustctl" test "$(man -w dustctl)" = /usr/share/man/man1/dustctl.1.gz
check "man -w 8 dustd" test "$(man -w 8 dustd)" = /usr/share/man/man8/dustd.8.gz
check "dustd's page is titled DUSTD(8)" sh -c 'zcat /usr/share/man/man8/dustd.8.gz | grep -qx ".Dt DUSTD 8"'
check "dustd(8) renders without warnings" sh -c 'test -z "$(MANWIDTH=80 man --warnings 8 dustd 2>&1 >/dev/null)"'
check "dustctl(1) renders without warnings" sh -c 'test -z "$(MANWIDTH=80 man --warnings 1 dustctl 2>&1 >/dev/null)"'
check "dustctl(1) documents dustctl demo" sh -c 'MANWIDTH=80 man 1 dustctl 2>/dev/null | grep -q "demo"'
for tool in dustctl dustd; do
    check "bash completion for $tool" bash -n "/usr/share/bash-completion/completions/$tool"
    check "zsh completion for $tool" grep -q "^#compdef $tool" "/usr/share/zsh/vendor-completions/_$tool"
    check "fish completion for $tool" grep -Eq "^complete -c '?$tool'? " "/usr/share/fish/vendor_completions.d/$tool.fish"
done
check "bash completes dustctl's commands" bash -c '
    source /usr/share/bash-completion/completions/dustctl
    COMP_WORDS=(dustctl ""); COMP_CWORD=1; COMP_LINE="dustctl "; COMP_POINT=${#COMP_LINE}
    _dustctl dustctl "" dustctl 2>/dev/null; printf "%s\n" "${COMPREPLY[@]}" | grep -qx demo'
check "systemd-analyze verify $unit" systemd-analyze verify "$unit"
check "the unit runs /usr/bin/dustd" grep -q '^ExecStart=/usr/bin/dustd ' "$unit"

demo=$(mktemp -d)
# As typed (found on PATH: argv[0] is just "dustctl") and by its full path.
check "dustctl demo from a directory without Fixtures/" \
    sh -c "cd '$demo' && dustctl demo > demo.out 2> demo.err || { cat demo.err >&2; false; }"
check "/usr/bin/dustctl demo from a directory without Fixtures/" \
    sh -c "cd '$demo' && rm -f finedust-demo.sqlite* && /usr/bin/dustctl demo > demo.out 2> demo.err || { cat demo.err >&2; false; }"
check "the demo reports 종로구 on 2026-11-20" sh -c "grep -q 종로구 '$demo/demo.out' && grep -q 2026-11-20 '$demo/demo.out'"

# Data and a key as a running service would leave them, and an admin's systemctl enable.
install -d -m 0750 -o dustd -g dustd /var/lib/dustd
# Copied the way the package says to copy a database (a cp leaves out what is still in the -wal, which
# once made this check fail when the demo's last checkpoint had not run).
dustctl backup --db "$demo/finedust-demo.sqlite" /var/lib/dustd/dust.sqlite > /dev/null
chown dustd:dustd /var/lib/dustd/dust.sqlite
chmod 0640 /var/lib/dustd/dust.sqlite
(umask 077; echo "e2e-not-a-real-key-0123456789abcdefghijklmnopqrstuv" > /etc/dustd/airkorea-service-key)
sync_status=0
env DUSTD_API_SERVICE_KEY_FILE=/etc/dustd/airkorea-service-key DUSTD_API_BASE_URL=http://127.0.0.1:9/B552584 \
    dustctl stations sync --db /root/stations.sqlite 2> /root/sync.err || sync_status=$?
check "the README's stations sync recipe gets as far as the network (exit 69)" \
    sh -c "test $sync_status -eq 69 || { cat /root/sync.err >&2; false; }"
systemctl enable dustd.service > /dev/null 2>&1
check "systemctl enable dustd (offline) made the link" test -L "$enabled_link"
check "dustctl reads the service's database" sh -c 'dustctl day 2026-11-20 --db /var/lib/dustd/dust.sqlite --station 종로구 --json | grep -q "\"station\":\"종로구\""'

apt-get -qy remove finedust > /root/remove.log 2>&1 || { cat /root/remove.log >&2; exit 1; }
echo "ok   apt-get remove finedust"
check "remove deletes the executables" absent /usr/bin/dustctl
check "remove keeps /var/lib/dustd/dust.sqlite" test -f /var/lib/dustd/dust.sqlite
check "remove keeps the key" test -f /etc/dustd/airkorea-service-key
check "remove keeps the configuration" test -f /etc/dustd/dustd.yaml
check "remove keeps the user dustd" user_exists

apt-get -qy install "/root/$deb" > /root/reinstall.log 2>&1 || { cat /root/reinstall.log >&2; exit 1; }
echo "ok   reinstall over the kept configuration"
check "the key is still there" test -f /etc/dustd/airkorea-service-key
check "postinst is quiet about the key once it is installed" sh -c '! grep -q "cat > /etc/dustd/airkorea-service-key" /root/reinstall.log'
check "postinst configure run again is harmless" sh -c 'DPKG_MAINTSCRIPT_PACKAGE=finedust DPKG_MAINTSCRIPT_NAME=postinst \
    /var/lib/dpkg/info/finedust.postinst configure "$0" > /dev/null && getent passwd dustd > /dev/null' "$version"

# An admin joined the group to read the database (README): purge must still remove the group.
useradd --system --no-create-home e2e-admin
usermod -aG dustd e2e-admin
apt-get -qy purge --autoremove finedust > /root/purge.log 2>&1 || { cat /root/purge.log >&2; exit 1; }
echo "ok   apt-get purge finedust"
check "purge deletes /var/lib/dustd" absent /var/lib/dustd
check "purge deletes /etc/dustd with the key" absent /etc/dustd
check "purge deletes the user dustd" sh -c '! getent passwd dustd > /dev/null'
check "purge deletes the group dustd, which e2e-admin had joined" sh -c '! getent group dustd > /dev/null'
check "purge deletes the enablement link" absent "$enabled_link"
check "dpkg forgot finedust" sh -c '! dpkg -s finedust > /dev/null 2>&1'
userdel e2e-admin
snapshot > /root/after
check "purge leaves nothing behind" sh -c 'diff /root/before /root/after >&2'

# Without systemd-sysusers (a system without systemd), postinst makes the same user.
mv /usr/bin/systemd-sysusers /usr/bin/systemd-sysusers.e2e-hidden
apt-get -qy install "/root/$deb" > /root/fallback.log 2>&1 || { mv /usr/bin/systemd-sysusers.e2e-hidden /usr/bin/systemd-sysusers; cat /root/fallback.log >&2; exit 1; }
mv /usr/bin/systemd-sysusers.e2e-hidden /usr/bin/systemd-sysusers
check "without systemd-sysusers: user dustd, home /var/lib/dustd, no login" \
    test "$(getent passwd dustd | cut -d: -f6,7)" = /var/lib/dustd:/usr/sbin/nologin
apt-get -qy purge --autoremove finedust > /root/purge2.log 2>&1 || { cat /root/purge2.log >&2; exit 1; }
check "and purge removes it again" sh -c '! getent passwd dustd > /dev/null'
if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed." >&2
    exit 1
fi
INSIDE

phase "installing, using, removing and purging $(basename "$deb") in the chroot"
unshare --mount --propagation private -- bash -c '
    set -e
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/run"
    mount -t tmpfs tmpfs "$root/tmp"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
        bash /root/deb-e2e-inside.sh "$@"
' bash "$root" "$(basename "$deb")" "$version" || fail "the package test in the chroot failed (above)."

phase "passed"
