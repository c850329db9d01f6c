// Command proxy is a round-robin TCP proxy for the benchmarks: each new
// connection goes to the next of the given servers, so two Pergola
// processes answer behind one address. Pergola has no SO_REUSEPORT
// listener; a proxy also spreads keep-alive connections evenly.
//
//	go run ./scripts/bench/proxy -listen 127.0.0.1:8800 -to 127.0.0.1:8801,127.0.0.1:8802
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8800", "address to listen on")
	to := flag.String("to", "", "comma-separated server addresses")
	flag.Parse()
	backends := strings.Split(*to, ",")
	if *to == "" {
		fmt.Fprintln(os.Stderr, "proxy: -to is required")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	serve(ln, backends)
}

// serve hands each connection ln accepts to the next backend, until ln
// is closed.
func serve(ln net.Listener, backends []string) {
	var next atomic.Uint64
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of file descriptors, say: the connection waits in the
			// backlog; keep serving the others.
			log.Printf("proxy: accept: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go relay(c.(*net.TCPConn), backends[(next.Add(1)-1)%uint64(len(backends))])
	}
}

// relay copies bytes both ways between the client and a server; when one
// side ends its writes, the other is told, and both close at the end.
func relay(client *net.TCPConn, addr string) {
	defer client.Close()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		log.Printf("proxy: %s: %v", addr, err)
		return
	}
	server := conn.(*net.TCPConn)
	defer server.Close()
	done := make(chan struct{})
	go func() {
		pipe(server, client)
		_ = server.CloseWrite()
		close(done)
	}()
	pipe(client, server)
	_ = client.CloseWrite()
	<-done
}

// pipe copies src to dst through a small buffer. io.Copy between two TCP
// connections would splice through a kernel pipe per direction: four more
// file descriptors per connection, which thousands of connections run out
// of.
func pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 4<<10)
	_, _ = io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, buf)
}
