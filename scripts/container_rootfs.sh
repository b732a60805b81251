#!/usr/bin/env bash
# What tests/gradescope/test_container.py needs, made once and cached: Podman and runc on this machine
# (Debian packages podman, runc, debootstrap) and a Debian 12 root file system made with
# `debootstrap --variant=minbase bookworm` (downloads from Debian's package registry with the
# mirror apt uses here). The root file system is cached in
# ${LM_READS_TEXT_CACHE:-$HOME/.cache/lm-reads-text}/debian12-rootfs, so a warm run only checks
# that it is complete. Prints the root file system's path on its last line.
# Usage: bash scripts/container_rootfs.sh        (as root, with apt-get)
set -euo pipefail
CACHE="${LM_READS_TEXT_CACHE:-${HOME:-/root}/.cache/lm-reads-text}"
ROOTFS="$CACHE/debian12-rootfs"
APT=(apt-get -o DPkg::Lock::Timeout=900)

missing=()
for pair in podman:podman runc:runc debootstrap:debootstrap; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "the container test needs ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "installing ${missing[*]} with apt-get" >&2
  "${APT[@]}" update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y -qq "${missing[@]}" >&2
fi

# The Debian mirror apt uses here (deb822 sources first, then sources.list), else Debian's own.
mirror=""
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
  [ -f "$f" ] || continue
  mirror="$(grep -Eo 'https?://[^ ]+/debian/?( |$)' "$f" | head -n1 | tr -d ' ' || true)"
  [ -n "$mirror" ] && break
done
mirror="${mirror:-http://deb.debian.org/debian}"

if [ ! -f "$ROOTFS/.complete" ]; then
  mkdir -p "$CACHE"
  rm -rf "$ROOTFS.partial"
  echo "debootstrap --variant=minbase bookworm from $mirror (a few minutes, once)" >&2
  debootstrap --variant=minbase bookworm "$ROOTFS.partial" "$mirror" >&2
  # Point the container's apt at the same mirror, with the security updates.
  cat > "$ROOTFS.partial/etc/apt/sources.list" <<SOURCES
deb ${mirror%/} bookworm main
deb ${mirror%/} bookworm-updates main
deb ${mirror%/}-security bookworm-security main
SOURCES
  touch "$ROOTFS.partial/.complete"
  rm -rf "$ROOTFS"
  mv "$ROOTFS.partial" "$ROOTFS"
fi
echo "$ROOTFS"
