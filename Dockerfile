# Build a static pergola binary (pure Go, no cgo) and run it on distroless.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/pergola ./backend/cmd/pergola

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/pergola /usr/local/bin/pergola
ENV PERGOLA_ADDR=:8888 PERGOLA_DATA_DIR=/data
VOLUME /data
EXPOSE 8888
ENTRYPOINT ["/usr/local/bin/pergola"]
CMD ["serve"]
