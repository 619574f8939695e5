#!/usr/bin/env bash
# Cuts a release: sets the version everywhere (the reactor and latchkey-bom, which has no parent), stamps the
# reproducible-build timestamp, builds and tests, stages the artifacts (scripts/stage.sh), commits and tags.
#   scripts/release.sh 0.1.0 [0.1.1-SNAPSHOT]
# Nothing is pushed or uploaded: push the tag and upload target/staging-deploy (e.g. to Maven Central's portal) by
# hand after looking at it. Set LATCHKEY_GPG_KEY to sign (scripts/stage.sh says when nothing is signed).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release.sh VERSION [NEXT_SNAPSHOT]}
next=${2:-}
if [ -n "$(git status --porcelain)" ]; then echo "the work tree has changes: commit or stash them first" >&2; exit 1; fi
if ! grep -q "^## \[$version\]" CHANGELOG.md; then echo "CHANGELOG.md has no \"## [$version]\" entry" >&2; exit 1; fi

set_version() {
  ./mvnw -B -ntp -q versions:set -DnewVersion="$1" -DprocessAllModules=true -DgenerateBackupPoms=false
  # latchkey-bom has no parent: versions:set with processAllModules covers it; checked here all the same
  grep -q "<version>$1</version>" latchkey-bom/pom.xml || { echo "latchkey-bom/pom.xml was not set to $1" >&2; exit 1; }
}

set_version "$version"
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
sed -i "s|<project.build.outputTimestamp>[^<]*</project.build.outputTimestamp>|<project.build.outputTimestamp>$stamp</project.build.outputTimestamp>|" pom.xml latchkey-bom/pom.xml
./test.sh
scripts/stage.sh -DskipTests
git commit -qam "Release $version"
git tag -a "v$version" -m "Latchkey $version"
echo "== tagged v$version; staged in target/staging-deploy"
if [ -n "$next" ]; then
  set_version "$next"
  git commit -qam "Next development version $next"
fi
