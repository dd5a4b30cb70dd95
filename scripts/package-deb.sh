#!/usr/bin/env bash
# Builds finedust_VERSION_ARCH.deb in the repository's top directory, without the network:
# release binaries (static Swift runtime, stripped), the systemd unit, the sysusers.d entry,
# /etc/dustd/dustd.yaml as a conffile, man pages dustctl(1) and dustd(8) from the argument
# parser's generate-manual plugin, bash/zsh/fish completions, the demo fixtures and the docs.
#
#   scripts/package-deb.sh                      then   sudo apt install ./finedust_*.deb
#   SCRATCH_PATH=.build-ci scripts/package-deb.sh      (SwiftPM's --scratch-path; default .build)
#   OUT_DIR=/tmp scripts/package-deb.sh                (where the .deb goes; default: here)
#
# VERSION is FineDustVersion.current (Sources/DustKit/Version.swift), read back from the built
# dustctl --version; packaging/changelog must have an entry for it. Needs dpkg-dev (dpkg-shlibdeps)
# and, on a machine that has never built FineDust, SwiftPM's dependency checkouts.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
scratch=${SCRATCH_PATH:-.build}
out=${OUT_DIR:-$top}
say() { printf 'package-deb: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

command -v dpkg-deb >/dev/null || die "dpkg-deb is missing: this script builds Debian packages on Debian."
command -v dpkg-shlibdeps >/dev/null || die "dpkg-shlibdeps is missing: sudo apt-get install dpkg-dev"
arch=$(dpkg --print-architecture)

# Reproducible: every date in the package (file times, man page dates) is the last commit's.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

bin=$(packaging/build-release.sh "$scratch")
extras="$scratch/finedust-extras"

version=$("$bin/dustctl" --version)
[[ $version =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || die "dustctl --version printed '$version', which is not a Debian upstream version."
[ "$("$bin/dustd" --version)" = "$version" ] || die "dustd and dustctl disagree about the version; rebuild both."
changelog_version=$(sed -n '1s/^finedust (\([^)]*\)).*/\1/p' packaging/changelog)
[ "$changelog_version" = "$version" ] ||
    die "packaging/changelog starts with version '$changelog_version' but FineDust is $version: add an entry for $version at the top (native package: no Debian revision)."

stage="$scratch/finedust-deb/root"
rm -rf "$scratch/finedust-deb"
mkdir -p "$stage/DEBIAN"
doc="$stage/usr/share/doc/finedust"
install -d -m 0755 "$stage/usr/bin" "$stage/lib/systemd/system" "$stage/usr/lib/sysusers.d" \
    "$stage/etc/dustd" "$stage/usr/share/man/man1" "$stage/usr/share/man/man8" \
    "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
    "$stage/usr/share/fish/vendor_completions.d" "$stage/usr/share/finedust" "$doc"

# Executables: stripped like scripts/install.sh does (install -s), and of the sections dh_strip
# removes too.
install -s -m 0755 "$bin/dustd" "$bin/dustctl" "$stage/usr/bin/"
strip --remove-section=.comment --remove-section=.note "$stage/usr/bin/dustd" "$stage/usr/bin/dustctl"

# The unit as scripts/install.sh installs it, with the paths of a packaged install.
sed -e 's|/usr/local/bin/|/usr/bin/|g' \
    -e 's|^Documentation=.*|Documentation=man:dustd(8) man:dustctl(1)|' \
    -e 's|^# Installed by scripts/install.sh\.|# Installed by the finedust package.|' \
    systemd/dustd.service > "$stage/lib/systemd/system/dustd.service"
chmod 0644 "$stage/lib/systemd/system/dustd.service"
grep -q '^ExecStart=/usr/bin/dustd ' "$stage/lib/systemd/system/dustd.service" ||
    die "systemd/dustd.service has no ExecStart=/usr/local/bin/dustd line to point at /usr/bin/dustd any more; update this script."
if grep -n '/usr/local' "$stage/lib/systemd/system/dustd.service"; then
    die "the packaged unit still names /usr/local (lines above); update the sed in this script."
fi
install -m 0644 systemd/dustd.sysusers "$stage/usr/lib/sysusers.d/dustd.conf"
# No tmpfiles.d entry: StateDirectory=dustd makes /var/lib/dustd (mode StateDirectoryMode=, owner
# User=) each time dustd starts; a tmpfiles.d line would be a second, drifting copy of that.
install -m 0644 Config/dustd.yaml "$stage/etc/dustd/dustd.yaml"

# Man pages and completions, as packaging/build-release.sh generated them.
install -m 0644 "$extras/man/man1/dustctl.1.gz" "$stage/usr/share/man/man1/"
install -m 0644 "$extras/man/man8/dustd.8.gz" "$stage/usr/share/man/man8/"
for tool in dustctl dustd; do
    install -m 0644 "$extras/bash/$tool" "$stage/usr/share/bash-completion/completions/$tool"
    install -m 0644 "$extras/zsh/_$tool" "$stage/usr/share/zsh/vendor-completions/_$tool"
    install -m 0644 "$extras/fish/$tool.fish" "$stage/usr/share/fish/vendor_completions.d/$tool.fish"
done

# The demo's responses: dustctl demo finds them at <binary>/../share/finedust/Fixtures.
cp -R Fixtures "$stage/usr/share/finedust/Fixtures"

# Documentation: files over 4 kB gzipped (Debian policy 12.3), the changelog always.
install -m 0644 README.md docs/*.md "$doc/"
find "$doc" -type f -size +4k -exec gzip -9n {} +
gzip -9n < packaging/changelog > "$doc/changelog.gz"
packaging/make-copyright.sh "$scratch" > "$doc/copyright"
install -d -m 0755 "$stage/usr/share/lintian/overrides"
install -m 0644 packaging/lintian-overrides "$stage/usr/share/lintian/overrides/finedust"

# Control area.
for script in postinst prerm postrm; do
    install -m 0755 "packaging/$script" "$stage/DEBIAN/$script"
done
printf '/etc/dustd/dustd.yaml\n' > "$stage/DEBIAN/conffiles"
# Depends: what the executables link, as dpkg-shlibdeps finds it (it wants a debian/control),
# and procps (control.in) for the unit's ExecReload=/bin/kill.
shlibs_dir="$scratch/finedust-deb/shlibs"
mkdir -p "$shlibs_dir/debian"
printf 'Source: finedust\n\nPackage: finedust\nArchitecture: any\n' > "$shlibs_dir/debian/control"
depends=$(cd "$shlibs_dir" && dpkg-shlibdeps -O "$top/$stage/usr/bin/dustd" "$top/$stage/usr/bin/dustctl" |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no shared libraries in dustd and dustctl."

# Uniform modes and dates whatever the umask and checkout were.
find "$stage" -path "$stage/DEBIAN" -prune -o -type d -exec chmod 0755 {} +
find "$stage" -path "$stage/DEBIAN" -prune -o -type f ! -path "$stage/usr/bin/*" -exec chmod 0644 {} +
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
    > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums" "$stage/DEBIAN/conffiles"
installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" packaging/control.in > "$stage/DEBIAN/control"
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb="$out/finedust_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
say "built $deb"
echo "$deb"
