// Package deploy holds what runs azuld in containers next to the top-level
// docker-compose files (the Caddyfile and haproxy.cfg of the replicas'
// proxies), and the tests that bring those files up on a real Docker
// engine: a whole game through the compose stack, with a reply by mail,
// a restart and a volume that outlives `down`; three replicas behind
// Caddy and HAProxy under load while one is killed and another is cut
// off from the database, with replies by mail before and after; and what
// `docker compose config` makes of the files with the variables a user
// sets (scripts/images/build.sh --names, a changed AZUL_HTTP_PORT).
//
// The tests need `docker compose` (v2; scripts/install-compose-plugin.sh
// builds it) and the images named by AZUL_IMAGE, AZUL_PG_IMAGE,
// AZUL_MAILPIT_IMAGE, AZUL_CADDY_IMAGE and AZUL_HAPROXY_IMAGE (defaults:
// the local builds of scripts/images/build.sh). They run when
// AZUL_COMPOSE_TEST=1, which .ci/run sets once the engine answers and the
// images are built; without it they say so and do nothing, so that
// `go test ./...` on a machine without Docker still passes.
package deploy
