#!/usr/bin/env bash
# Builds the container images that this repository's compose files and
# tests use, locally, for machines whose Docker engine cannot pull from a
# registry. Nothing here pulls an image: PostgreSQL and HAProxy come from
# Debian's packages (a debootstrap root file system, docker import),
# mailpit, Caddy and azuld are Go programs built on the host into images
# FROM scratch.
#
# Image names and versions (docker-compose*.yml and .ci/run use these):
#   azuld-local/postgres:15        PostgreSQL from Debian bookworm (PG_MAJOR)
#   azuld-local/mailpit:v1.27.11   mail catcher (MAILPIT_VERSION)
#   azuld-local/azuld:dev          azuld from this work tree
#   azuld-local/caddy:v2.11.9      HTTP proxy of the replicas (CADDY_VERSION)
#   azuld-local/haproxy:2.6        SMTP proxy of the replicas, from Debian
#                                  bookworm (its haproxy is 2.6)
#   azuld-local/patroni:15         a PostgreSQL node of the HA stack: Debian
#                                  bookworm's postgresql-15, patroni and
#                                  pgbackrest (docker-compose.ha.yml)
#   azuld-local/etcd:3.4           a member of the HA stack's consensus
#                                  store: bookworm's etcd-server (3.4)
# AZUL_LOCAL_PG_IMAGE, AZUL_LOCAL_MAILPIT_IMAGE, AZUL_LOCAL_AZULD_IMAGE,
# AZUL_LOCAL_CADDY_IMAGE, AZUL_LOCAL_HAPROXY_IMAGE, AZUL_LOCAL_PATRONI_IMAGE
# and AZUL_LOCAL_ETCD_IMAGE change the tags built.
#
# Usage: scripts/images/build.sh [postgres|mailpit|azuld|caddy|haproxy|patroni|etcd ...]
#        (no argument: the first five, PostgreSQL first, Caddy last; the
#        HA stack's patroni and etcd only when named)
#        scripts/images/build.sh --names
#            prints the compose files' variables naming these images
#            (export AZUL_PG_IMAGE=... lines), which work as they are
#            both in eval "$(scripts/images/build.sh --names)" and in the
#            .env file docker compose reads
#
# An image is skipped when its tag exists with the label org.azuld.inputs
# equal to the hash of its inputs (this script, its directory, versions,
# and for azuld the binary). The debootstrap root file systems are cached
# as tarballs under AZUL_IMAGES_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/azuld-images).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="/usr/local/go/bin:$PATH"

DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
PG_MAJOR=${PG_MAJOR:-15}
MAILPIT_VERSION=${MAILPIT_VERSION:-v1.27.11}
CADDY_VERSION=${CADDY_VERSION:-v2.11.9}

PG_IMAGE=${AZUL_LOCAL_PG_IMAGE:-azuld-local/postgres:$PG_MAJOR}
MAILPIT_IMAGE=${AZUL_LOCAL_MAILPIT_IMAGE:-azuld-local/mailpit:$MAILPIT_VERSION}
AZULD_IMAGE=${AZUL_LOCAL_AZULD_IMAGE:-azuld-local/azuld:dev}
CADDY_IMAGE=${AZUL_LOCAL_CADDY_IMAGE:-azuld-local/caddy:$CADDY_VERSION}
# The tag follows the major.minor version of the suite's haproxy package.
HAPROXY_IMAGE=${AZUL_LOCAL_HAPROXY_IMAGE:-azuld-local/haproxy:2.6}
PATRONI_IMAGE=${AZUL_LOCAL_PATRONI_IMAGE:-azuld-local/patroni:$PG_MAJOR}
# The tag follows the major.minor version of the suite's etcd-server.
ETCD_IMAGE=${AZUL_LOCAL_ETCD_IMAGE:-azuld-local/etcd:3.4}

cache=${AZUL_IMAGES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/azuld-images}
label=org.azuld.inputs
# The classic builder: this engine may have no BuildKit, and nothing here
# needs it.
export DOCKER_BUILDKIT=0

log() { printf 'images: %s\n' "$*" >&2; }

# Temporary dirs live in one work dir, removed when the script ends,
# however it ends.
work=$(mktemp -d "${TMPDIR:-/tmp}/azuld-images.XXXXXX")
trap 'rm -rf "$work"' EXIT
tempdir() { mktemp -d "$work/XXXXXX"; }

# replaced IMAGE OLD_ID: removes the image a rebuild untagged, unless a
# container still uses it.
replaced() {
	local now
	now=$(docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true)
	if [ -n "$2" ] && [ "$2" != "$now" ]; then docker rmi "$2" >/dev/null 2>&1 || true; fi
}
old_id() { docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true; }

# inputs_hash NAME EXTRA... hashes this script, the image's directory and
# the extra words (versions, the binary's hash).
inputs_hash() {
	local dir=$1; shift
	{
		cat "$here/build.sh"
		if [ -d "$here/$dir" ]; then
			(cd "$here/$dir" && find . -type f | LC_ALL=C sort | xargs sha256sum)
		fi
		printf '%s\n' "$@"
	} | sha256sum | cut -c1-32
}

# up_to_date IMAGE HASH: the tag exists and was built from these inputs.
up_to_date() {
	local have
	have=$(docker image inspect -f "{{index .Config.Labels \"$label\"}}" "$1" 2>/dev/null || true)
	[ "$have" = "$2" ]
}

# quietly CMD...: runs CMD with its output kept aside, shown on failure.
quietly() {
	local out
	out=$(tempdir)/output
	"$@" >"$out" 2>&1 || { cat "$out" >&2; return 1; }
}

# go_static OUT MODULE@VERSION: a static build of a Go program from the
# module proxy, outside this module (its go.mod plays no part).
go_static() {
	local out=$1 pkg=$2 gobin
	gobin=$(tempdir)
	(cd "$gobin" && quietly env GOFLAGS= GOBIN="$gobin" CGO_ENABLED=0 GOOS=linux \
		go install -trimpath -ldflags='-s -w' "$pkg")
	mv "$gobin/$(basename "${pkg%@*}")" "$out"
}

apt_mirror() {
	local uri
	uri=$(grep -h -m1 -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | head -n1 || true)
	if [ -z "$uri" ]; then
		uri=$(grep -h -m1 -E '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | head -n1 || true)
	fi
	echo "${uri:-http://deb.debian.org/debian}"
}

# debian_bootstrap DIR: a minbase Debian in DIR that installs no
# documentation, manuals or translations and starts no service. Its log
# goes to DIR.log, shown when a step fails.
debian_bootstrap() {
	local dir=$1
	command -v debootstrap >/dev/null || {
		log "installing debootstrap"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
	}
	log "debootstrap $DEBIAN_SUITE (minbase) from $(apt_mirror)"
	debootstrap --variant=minbase "$DEBIAN_SUITE" "$dir" "$(apt_mirror)" >"$dir.log" 2>&1 || {
		tail -n 30 "$dir.log" >&2; return 1
	}
	printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
	chmod +x "$dir/usr/sbin/policy-rc.d"
	cat >"$dir/etc/dpkg/dpkg.cfg.d/01-azuld-slim" <<-'CFG'
		path-exclude /usr/share/doc/*
		path-exclude /usr/share/man/*
		path-exclude /usr/share/info/*
		path-exclude /usr/share/locale/*
		path-exclude /usr/share/lintian/*
	CFG
}

# debian_install DIR PACKAGE...: installs the packages without their
# recommendations.
debian_install() {
	local dir=$1; shift
	log "apt-get install $* in the root file system"
	chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		sh -c "apt-get install -y -qq --no-install-recommends $*" \
		>>"$dir.log" 2>&1 || { tail -n 30 "$dir.log" >&2; return 1; }
	chroot "$dir" apt-get clean
}

# debian_pack DIR TARBALL: drops what an image does not need (package
# lists, caches, logs) and packs DIR into TARBALL.
debian_pack() {
	local dir=$1 tarball=$2
	rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* \
		"$dir"/usr/share/locale/* "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/* \
		"$dir"/var/log/* "$dir"/var/cache/debconf/*-old "$dir"/usr/sbin/policy-rc.d
	rm -f "$dir.log"
	mkdir -p "$(dirname "$tarball")"
	tar -C "$dir" --numeric-owner -cf "$tarball.tmp" .
	mv "$tarball.tmp" "$tarball"
}

# rootfs_tarball NAME FUNCTION: where the root file system FUNCTION makes
# is cached, keyed by the suite and the text of the functions that make it.
rootfs_tarball() {
	local key
	key=$(declare -f "$2" debian_bootstrap debian_install debian_pack | sha256sum | cut -c1-12)
	echo "$cache/$1-rootfs-$DEBIAN_SUITE-$key.tar"
}

# postgres_rootfs TARBALL: a minbase Debian with postgresql-$PG_MAJOR and
# nothing a server does not need.
postgres_rootfs() {
	local tarball=$1 dir
	dir=$(tempdir)
	debian_bootstrap "$dir"
	# The image makes its own cluster at start; no service runs in a build.
	mkdir -p "$dir/etc/postgresql-common"
	echo 'create_main_cluster = false' >"$dir/etc/postgresql-common/createcluster.conf"
	debian_install "$dir" "postgresql-$PG_MAJOR" "postgresql-client-$PG_MAJOR"
	# JIT compilation is off unless asked for and needs LLVM (more than
	# half the image); without its provider PostgreSQL simply does not JIT.
	chroot "$dir" dpkg --purge --force-depends libllvm14 libz3-4 >>"$dir.log" 2>&1
	rm -rf "$dir/usr/lib/postgresql/$PG_MAJOR/lib/llvmjit"* "$dir/usr/lib/postgresql/$PG_MAJOR/lib/bitcode" \
		"$dir/usr/share/i18n"
	debian_pack "$dir" "$tarball"
}

# haproxy_rootfs TARBALL: a minbase Debian with the suite's haproxy.
haproxy_rootfs() {
	local tarball=$1 dir
	dir=$(tempdir)
	debian_bootstrap "$dir"
	debian_install "$dir" haproxy
	debian_pack "$dir" "$tarball"
}

# patroni_rootfs TARBALL: a minbase Debian with postgresql-$PG_MAJOR,
# Patroni (with python3-etcd, its etcd client) and pgBackRest, and curl for
# the health check (Patroni's REST API).
patroni_rootfs() {
	local tarball=$1 dir
	dir=$(tempdir)
	debian_bootstrap "$dir"
	mkdir -p "$dir/etc/postgresql-common"
	echo 'create_main_cluster = false' >"$dir/etc/postgresql-common/createcluster.conf"
	debian_install "$dir" "postgresql-$PG_MAJOR" "postgresql-client-$PG_MAJOR" patroni python3-etcd pgbackrest curl ca-certificates
	# As in the postgres image: no JIT, so no LLVM.
	chroot "$dir" dpkg --purge --force-depends libllvm14 libz3-4 >>"$dir.log" 2>&1
	rm -rf "$dir/usr/lib/postgresql/$PG_MAJOR/lib/llvmjit"* "$dir/usr/lib/postgresql/$PG_MAJOR/lib/bitcode" \
		"$dir/usr/share/i18n"
	debian_pack "$dir" "$tarball"
}

# etcd_rootfs TARBALL: a minbase Debian with the suite's etcd server and
# its command-line client (the tests ask it who leads).
etcd_rootfs() {
	local tarball=$1 dir
	dir=$(tempdir)
	debian_bootstrap "$dir"
	debian_install "$dir" etcd-server etcd-client
	debian_pack "$dir" "$tarball"
}

# check_postgres IMAGE: the entry point does what the official image's
# does for its clients: user, database, password over TCP, init scripts,
# extra server options, two "ready" log lines, and a server not run as root.
check_postgres() {
	local image=$1 ctx cid out ok=
	ctx=$(tempdir)
	printf "CREATE TABLE init_check AS SELECT 'from initdb.d' AS note;\n" >"$ctx/10-check.sql"
	cid=$(docker create -e POSTGRES_PASSWORD=check-pw -e POSTGRES_USER=azt -e POSTGRES_DB=aztdb "$image" -c max_connections=42)
	docker cp "$ctx/10-check.sql" "$cid:/docker-entrypoint-initdb.d/10-check.sql" >/dev/null
	docker start "$cid" >/dev/null
	for _ in $(seq 1 120); do
		if [ "$(docker logs "$cid" 2>&1 | grep -c 'database system is ready to accept connections')" -ge 2 ]; then ok=1; break; fi
		sleep 0.5
	done
	if [ -n "$ok" ]; then
		# Over the container's own network address, not loopback (which
		# the official image trusts), so the password counts.
		out=$(docker exec -e PGPASSWORD=check-pw "$cid" sh -c '
			ip=$(hostname -i | cut -d" " -f1)
			pg_isready -q -h "$ip" -U azt -d aztdb &&
			psql -h "$ip" -U azt -d aztdb -tAc "SELECT current_setting('"'max_connections'"') || '"'|'"' || note FROM init_check" &&
			{ PGPASSWORD=wrong psql -h "$ip" -U azt -d aztdb -tAc "SELECT 1" >/dev/null 2>&1 && echo "a wrong password was accepted"; } ;
			grep "^Uid:" /proc/1/status' 2>&1) || ok=
	fi
	if [ -z "$ok" ] || ! grep -q '^42|from initdb.d$' <<<"$out" || grep -qE '^Uid:\s+0\s|wrong password' <<<"$out"; then
		log "$image failed its check: ${out:-no second ready line}"
		docker logs "$cid" 2>&1 | tail -n 20 >&2
		docker rm -f "$cid" >/dev/null
		return 1
	fi
	docker rm -f "$cid" >/dev/null
	log "$image passed its check (user, database, password, init script, options, log lines, non-root)"
}

build_postgres() {
	local hash base tarball old
	hash=$(inputs_hash postgres "$DEBIAN_SUITE" "$PG_MAJOR")
	if up_to_date "$PG_IMAGE" "$hash"; then log "$PG_IMAGE is up to date"; return; fi
	# Only the root file system function's text keys the tarball, so a
	# change to the entry point does not debootstrap again.
	tarball=$(rootfs_tarball "postgres-$PG_MAJOR" postgres_rootfs)
	if [ ! -s "$tarball" ]; then postgres_rootfs "$tarball"; else log "root file system from $tarball"; fi
	base="azuld-local/postgres-rootfs:$PG_MAJOR"
	docker import "$tarball" "$base" >/dev/null
	old=$(old_id "$PG_IMAGE")
	quietly docker build -q --build-arg BASE="$base" --build-arg PG_MAJOR="$PG_MAJOR" \
		--label "$label=$hash" -t "$PG_IMAGE" "$here/postgres" >/dev/null
	if ! check_postgres "$PG_IMAGE"; then
		docker rmi "$PG_IMAGE" >/dev/null 2>&1 || true
		return 1
	fi
	replaced "$PG_IMAGE" "$old"
	log "built $PG_IMAGE"
}

# HAProxy from the suite's package, laid out like the official image: its
# configuration at /usr/local/etc/haproxy/haproxy.cfg, run as the user
# haproxy.
build_haproxy() {
	local hash base tarball old
	hash=$(inputs_hash haproxy "$DEBIAN_SUITE")
	if up_to_date "$HAPROXY_IMAGE" "$hash"; then log "$HAPROXY_IMAGE is up to date"; return; fi
	tarball=$(rootfs_tarball haproxy haproxy_rootfs)
	if [ ! -s "$tarball" ]; then haproxy_rootfs "$tarball"; else log "root file system from $tarball"; fi
	base="azuld-local/haproxy-rootfs:$DEBIAN_SUITE"
	docker import "$tarball" "$base" >/dev/null
	old=$(old_id "$HAPROXY_IMAGE")
	quietly docker build -q --build-arg BASE="$base" --label "$label=$hash" -t "$HAPROXY_IMAGE" "$here/haproxy" >/dev/null
	# The binary runs with what the slimmed root file system kept.
	if ! quietly docker run --rm "$HAPROXY_IMAGE" haproxy -vv; then
		docker rmi "$HAPROXY_IMAGE" >/dev/null 2>&1 || true
		return 1
	fi
	replaced "$HAPROXY_IMAGE" "$old"
	log "built $HAPROXY_IMAGE"
}

# A node of the HA stack: Patroni runs PostgreSQL, and pgBackRest archives
# its WAL and takes its backups (deploy/ha, docs/OPERATIONS.md).
build_patroni() {
	local hash base tarball old
	hash=$(inputs_hash patroni "$DEBIAN_SUITE" "$PG_MAJOR")
	if up_to_date "$PATRONI_IMAGE" "$hash"; then log "$PATRONI_IMAGE is up to date"; return; fi
	tarball=$(rootfs_tarball "patroni-$PG_MAJOR" patroni_rootfs)
	if [ ! -s "$tarball" ]; then patroni_rootfs "$tarball"; else log "root file system from $tarball"; fi
	base="azuld-local/patroni-rootfs:$PG_MAJOR"
	docker import "$tarball" "$base" >/dev/null
	old=$(old_id "$PATRONI_IMAGE")
	quietly docker build -q --build-arg BASE="$base" --build-arg PG_MAJOR="$PG_MAJOR" \
		--label "$label=$hash" -t "$PATRONI_IMAGE" "$here/patroni" >/dev/null
	# The programs run with what the slimmed root file system kept.
	if ! quietly docker run --rm --entrypoint sh "$PATRONI_IMAGE" -c \
		'patroni --version && patronictl version && pgbackrest version && postgres --version && python3 -c "import etcd"'; then
		docker rmi "$PATRONI_IMAGE" >/dev/null 2>&1 || true
		return 1
	fi
	replaced "$PATRONI_IMAGE" "$old"
	log "built $PATRONI_IMAGE"
}

build_etcd() {
	local hash base tarball old
	hash=$(inputs_hash etcd "$DEBIAN_SUITE")
	if up_to_date "$ETCD_IMAGE" "$hash"; then log "$ETCD_IMAGE is up to date"; return; fi
	tarball=$(rootfs_tarball etcd etcd_rootfs)
	if [ ! -s "$tarball" ]; then etcd_rootfs "$tarball"; else log "root file system from $tarball"; fi
	base="azuld-local/etcd-rootfs:$DEBIAN_SUITE"
	docker import "$tarball" "$base" >/dev/null
	old=$(old_id "$ETCD_IMAGE")
	quietly docker build -q --build-arg BASE="$base" --label "$label=$hash" -t "$ETCD_IMAGE" "$here/etcd" >/dev/null
	if ! quietly docker run --rm "$ETCD_IMAGE" sh -c 'etcd --version && etcdctl version'; then
		docker rmi "$ETCD_IMAGE" >/dev/null 2>&1 || true
		return 1
	fi
	replaced "$ETCD_IMAGE" "$old"
	log "built $ETCD_IMAGE"
}

build_mailpit() {
	local hash ctx old
	hash=$(inputs_hash mailpit "$MAILPIT_VERSION")
	if up_to_date "$MAILPIT_IMAGE" "$hash"; then log "$MAILPIT_IMAGE is up to date"; return; fi
	ctx=$(tempdir)
	cp -r "$here/mailpit/." "$ctx/"
	log "go install github.com/axllent/mailpit@$MAILPIT_VERSION"
	go_static "$ctx/mailpit" "github.com/axllent/mailpit@$MAILPIT_VERSION"
	mkdir -p "$ctx/rootfs/tmp" "$ctx/rootfs/data"
	chmod 1777 "$ctx/rootfs/tmp"
	old=$(old_id "$MAILPIT_IMAGE")
	quietly docker build -q --label "$label=$hash" -t "$MAILPIT_IMAGE" "$ctx" >/dev/null
	replaced "$MAILPIT_IMAGE" "$old"
	log "built $MAILPIT_IMAGE"
}

build_caddy() {
	local hash ctx old
	hash=$(inputs_hash caddy "$CADDY_VERSION")
	if up_to_date "$CADDY_IMAGE" "$hash"; then log "$CADDY_IMAGE is up to date"; return; fi
	ctx=$(tempdir)
	cp -r "$here/caddy/." "$ctx/"
	log "go install github.com/caddyserver/caddy/v2/cmd/caddy@$CADDY_VERSION"
	go_static "$ctx/caddy" "github.com/caddyserver/caddy/v2/cmd/caddy@$CADDY_VERSION"
	cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
	mkdir -p "$ctx/rootfs/tmp" "$ctx/rootfs/config/caddy" "$ctx/rootfs/data/caddy"
	chmod 1777 "$ctx/rootfs/tmp"
	old=$(old_id "$CADDY_IMAGE")
	quietly docker build -q --label "$label=$hash" -t "$CADDY_IMAGE" "$ctx" >/dev/null
	replaced "$CADDY_IMAGE" "$old"
	log "built $CADDY_IMAGE"
}

# azuld is built from this work tree on the host and put into the
# top-level Dockerfile's "local" target (FROM scratch).
build_azuld() {
	local hash ctx old
	ctx=$(tempdir)
	(cd "$root" && quietly env GOFLAGS= CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags='-s -w' -o "$ctx/azuld" ./cmd/azuld)
	hash=$(inputs_hash azuld "$(sha256sum "$ctx/azuld" | cut -c1-64)" "$(sha256sum "$root/Dockerfile" | cut -c1-64)")
	if up_to_date "$AZULD_IMAGE" "$hash"; then log "$AZULD_IMAGE is up to date"; return; fi
	cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
	cp -r /usr/share/zoneinfo "$ctx/zoneinfo"
	mkdir -p "$ctx/tmp" && chmod 1777 "$ctx/tmp"
	old=$(old_id "$AZULD_IMAGE")
	quietly docker build -q --target local --label "$label=$hash" -t "$AZULD_IMAGE" \
		-f "$root/Dockerfile" "$ctx" >/dev/null
	replaced "$AZULD_IMAGE" "$old"
	log "built $AZULD_IMAGE"
}

# The variables the compose files read (the build's own AZUL_LOCAL_* name
# the tags to build, and the compose files do not read them). "export"
# makes the lines work in a shell's eval, and docker compose's .env
# parser skips it.
if [ "${1:-}" = --names ]; then
	printf 'export AZUL_PG_IMAGE=%s\nexport AZUL_MAILPIT_IMAGE=%s\nexport AZUL_IMAGE=%s\nexport AZUL_CADDY_IMAGE=%s\nexport AZUL_HAPROXY_IMAGE=%s\nexport AZUL_PATRONI_IMAGE=%s\nexport AZUL_ETCD_IMAGE=%s\n' \
		"$PG_IMAGE" "$MAILPIT_IMAGE" "$AZULD_IMAGE" "$CADDY_IMAGE" "$HAPROXY_IMAGE" "$PATRONI_IMAGE" "$ETCD_IMAGE"
	exit 0
fi

mkdir -p "$cache"
[ "$#" -gt 0 ] || set -- postgres mailpit azuld haproxy caddy
for image in "$@"; do
	start=$SECONDS
	case "$image" in
	postgres | mailpit | azuld | haproxy | caddy | patroni | etcd) "build_$image" ;;
	*) echo "unknown image $image (postgres, mailpit, azuld, haproxy, caddy, patroni, etcd)" >&2; exit 2 ;;
	esac
	log "$image: $((SECONDS - start))s"
done
