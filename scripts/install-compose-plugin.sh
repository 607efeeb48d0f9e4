#!/usr/bin/env bash
# Installs the Docker Compose v2 CLI plugin (`docker compose`), built from its
# Go module, into ~/.docker/cli-plugins when it is missing. The compose smoke
# and replica tests use v2 features (`up --wait`, profiles with --scale).
#
# v2.35.1 is built with the Docker client 28.1, which negotiates the API
# version down to what the engine speaks (20.10 answers API 1.41); the client
# of Docker 29 refuses engines older than API 1.44.
# The module's go.mod has exclude directives, so `go install pkg@version`
# refuses it: the source is downloaded and built in its own module.
set -euo pipefail
version="${COMPOSE_VERSION:-v2.35.1}"
plugin_dir="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
plugin="$plugin_dir/docker-compose"
export PATH="/usr/local/go/bin:$PATH"

if [ -x "$plugin" ] && "$plugin" version --short 2>/dev/null | grep -qx "${version#v}"; then
  echo "docker compose ${version} already installed at $plugin"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Downloaded from outside this repository's module, which it must not touch.
src=$(cd "$work" && GOFLAGS= go mod download -json "github.com/docker/compose/v2@${version}" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] || { echo "could not download github.com/docker/compose/v2@${version}" >&2; exit 1; }
cp -r "$src/." "$work/"
chmod -R u+w "$work"
mkdir -p "$plugin_dir"
(cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
  -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=${version}" \
  -o "$plugin.tmp" ./cmd)
mv "$plugin.tmp" "$plugin"
echo "docker compose ${version} installed at $plugin"
"$plugin" version
