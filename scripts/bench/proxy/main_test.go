package main

import (
	"io"
	"net"
	"testing"
)

// TestRoundRobinRelay sends each new connection to the next server and
// relays both ways until the client ends its writes.
func TestRoundRobinRelay(t *testing.T) {
	a, b := nameServer(t, "a"), nameServer(t, "b")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serve(ln, []string{a, b})
	var got []string
	for i := range 4 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		msg := []byte{byte('0' + i)}
		c.Write(msg)
		c.(*net.TCPConn).CloseWrite()
		answer, err := io.ReadAll(c)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(answer))
	}
	want := []string{"a:0", "b:1", "a:2", "b:3"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("answers %q, want %q", got, want)
		}
	}
}

// nameServer answers each connection with its name, a colon and all the
// client sent, once the client has ended its writes.
func nameServer(t *testing.T, name string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			in, _ := io.ReadAll(c)
			c.Write(append([]byte(name+":"), in...))
			c.Close()
		}
	}()
	return ln.Addr().String()
}
