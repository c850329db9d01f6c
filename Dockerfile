# Build a static pergola binary (pure Go, no cgo) and run it on distroless.
# .dockerignore keeps node_modules, .git and local data out of the context.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/pergola ./backend/cmd/pergola \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/pergola /usr/local/bin/pergola
# The data directory belongs to the nonroot user, so a fresh volume does too.
COPY --from=build --chown=65532:65532 /out/data /data
ENV PERGOLA_ADDR=:8888 PERGOLA_DATA_DIR=/data
VOLUME /data
EXPOSE 8888
# `pergola healthcheck` GETs /readyz on PERGOLA_ADDR: no curl needed.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=6 CMD ["/usr/local/bin/pergola", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/pergola"]
CMD ["serve"]
