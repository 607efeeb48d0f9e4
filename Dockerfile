# azuld's container image: a static binary (CGO off) on a minimal base,
# running as a non-root user, with a health check that needs no shell
# (azuld health asks /readyz on AZUL_HTTP_ADDR).
#
# Two ways to build it:
#
#   docker build -t azuld .
#       The default target, "runtime": azuld compiled in a golang stage,
#       on distroless/static (CA certificates, time zone data, user 65532).
#       Needs a registry for the two base images.
#
#   scripts/images/build.sh azuld    (docker build --target local CONTEXT)
#       For machines that cannot pull: a binary built on the host, with the
#       host's CA certificates and zoneinfo, FROM scratch. The script makes
#       the build context: azuld, ca-certificates.crt, zoneinfo/, tmp/.
#
# The "local" stage comes first because the classic builder (no BuildKit)
# builds every stage before its target, and "local" must not need a pull.
# BuildKit builds only the stages a target needs.

ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM scratch AS local
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY zoneinfo /usr/share/zoneinfo
COPY --chown=65532:65532 tmp /tmp
COPY azuld /azuld
ENV AZUL_HTTP_ADDR=:8080 \
    AZUL_DATA_DIR=/tmp/azuld \
    ZONEINFO=/usr/share/zoneinfo
USER 65532:65532
EXPOSE 8080 2525
HEALTHCHECK --interval=10s --timeout=6s --start-period=30s --retries=3 CMD ["/azuld", "health"]
ENTRYPOINT ["/azuld"]
CMD ["serve"]

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/azuld ./cmd/azuld

FROM ${RUNTIME_IMAGE} AS runtime
COPY --from=build /out/azuld /azuld
ENV AZUL_HTTP_ADDR=:8080 \
    AZUL_DATA_DIR=/tmp/azuld
USER 65532:65532
EXPOSE 8080 2525
HEALTHCHECK --interval=10s --timeout=6s --start-period=30s --retries=3 CMD ["/azuld", "health"]
ENTRYPOINT ["/azuld"]
CMD ["serve"]
