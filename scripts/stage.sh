#!/usr/bin/env bash
# Builds the published modules into a Maven repository under target/staging-deploy (jars, sources, javadoc,
# flattened POMs, SHA-512/SHA-256/SHA-1/MD5 checksums; .asc signatures when a key is given):
#   scripts/stage.sh [extra Maven arguments]        e.g. -DskipTests (the examples smoke does this)
# Signing: set LATCHKEY_GPG_KEY to a key id in the local gpg keyring; without it the staged artifacts are unsigned
# and this says so.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf target/staging-deploy
sign=()
if [ -n "${LATCHKEY_GPG_KEY:-}" ]; then
  sign=(-Dgpg.keyname="$LATCHKEY_GPG_KEY")
else
  echo "== no signing key configured (LATCHKEY_GPG_KEY): the staged artifacts are unsigned" >&2
fi
./mvnw -B -ntp -P release verify -Daether.checksums.algorithms=SHA-512,SHA-256,SHA-1,MD5 ${sign[@]+"${sign[@]}"} "$@"
echo "== staged $(find target/staging-deploy -name '*.jar' | wc -l) jars, $(find target/staging-deploy -name '*.pom' | wc -l) POMs in target/staging-deploy"
