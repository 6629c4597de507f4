#!/usr/bin/env bash
# Lays out what `rocksleak run --profile` needs to profile the JVM engine's children (harness.JVMProfiler), from
# Maven Central, resolved once into ~/.m2 (offline first, online only when ~/.m2 lacks them):
#   <dir>/libasyncProfiler.so   async-profiler's agent (tools.profiler:async-profiler:<v>, classifier linux-x64),
#                               loaded with -agentpath; its nativemem mode records malloc and free with mixed stacks
#   <dir>/async-profiler.jar    the same jar: one.profiler.AsyncProfiler, which the child starts and stops
#   <dir>/jfr-converter.jar     tools.profiler:jfr-converter:<v> (jfrconv): the recording's leak view, collapsed and HTML
# Usage: engine/jvm/child/profiler.sh <dir>   (ASYNC_PROFILER_VERSION, default 4.2; MVN, default mvn; M2_REPO)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 <dir>" >&2; exit 2; }
dir=$(mkdir -p "$1" && cd "$1" && pwd)
v=${ASYNC_PROFILER_VERSION:-4.2}
mvn=${MVN:-mvn}
repo=${M2_REPO:-$HOME/.m2/repository} # Maven's default local repository (M2_REPO when settings.xml moves it)
get() { # groupId artifactId version [classifier] -> path of the jar in the local repository
  local g=$1 a=$2 ver=$3 c=${4:-} jar
  jar="$repo/${g//.//}/$a/$ver/$a-$ver${c:+-$c}.jar"
  if [ ! -f "$jar" ]; then
    "$mvn" -q -B -Dstyle.color=never dependency:get -Dtransitive=false -Dartifact="$g:$a:$ver:jar${c:+:$c}" >&2
  fi
  [ -f "$jar" ] || { echo "engine/jvm/child/profiler.sh: $g:$a:$ver${c:+:$c} did not resolve to $jar" >&2; exit 1; }
  echo "$jar"
}
ap=$(get tools.profiler async-profiler "$v" linux-x64)
conv=$(get tools.profiler jfr-converter "$v")
cp "$ap" "$dir/async-profiler.jar"
cp "$conv" "$dir/jfr-converter.jar"
unzip -p "$ap" linux-x64/libasyncProfiler.so > "$dir/libasyncProfiler.so.tmp"
mv "$dir/libasyncProfiler.so.tmp" "$dir/libasyncProfiler.so"
echo "$v" > "$dir/version.txt"
echo "engine/jvm/child: $dir (async-profiler $v)"
