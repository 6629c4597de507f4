#!/usr/bin/env bash
# Installs what rocksleak needs to build and run on Debian 12 (bookworm) or a
# Debian-like system: RocksDB 7.8 headers and library (librocksdb-dev),
# jemalloc (libjemalloc2), and for the JVM engine (kafka-<version> models) a
# JDK 17 (openjdk-17-jdk-headless) and Maven (maven). Does nothing when all are
# present. With --load it also installs stress-ng, the CPU load `make gate-aa
# LOAD=1` runs beside the runs.
set -euo pipefail

need=()
if [ "${1:-}" = "--load" ]; then
  command -v stress-ng >/dev/null 2>&1 || need+=(stress-ng)
fi
[ -f /usr/include/rocksdb/c.h ] || need+=(librocksdb-dev)
have_jemalloc=no
for f in /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2; do
  [ -e "$f" ] && have_jemalloc=yes
done
[ "$have_jemalloc" = yes ] || need+=(libjemalloc2)
# The JVM engine: javac (a JDK, not only a JRE) and mvn.
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
if ! command -v go >/dev/null 2>&1; then
  echo "rocksleak: Go is not on PATH; install Go 1.24 or later (https://go.dev/doc/install) and run make again." >&2
  exit 1
fi
[ ${#need[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "rocksleak: missing ${need[*]} and this is not a Debian-like system (no apt-get)." >&2
  echo "Install RocksDB 7.8.x with its C headers (rocksdb/c.h), jemalloc 5, a JDK 17 and Maven with your package manager, then run make again." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO=(sudo -n)
else
  echo "rocksleak: missing ${need[*]}; installing needs root. Run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "rocksleak: installing ${need[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
[ -f /usr/include/rocksdb/c.h ] || { echo "rocksleak: librocksdb-dev installed but rocksdb/c.h is still missing" >&2; exit 1; }
command -v javac >/dev/null 2>&1 || { echo "rocksleak: openjdk-17-jdk-headless installed but javac is still not on PATH" >&2; exit 1; }
command -v mvn >/dev/null 2>&1 || { echo "rocksleak: maven installed but mvn is still not on PATH" >&2; exit 1; }
echo "rocksleak: installed ${need[*]}"
