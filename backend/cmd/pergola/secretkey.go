package main

import "errors"

// errWeakKey says how to make a real key. Placeholder keys such as 64
// zeros come from examples and compose files; a server started with one
// "encrypts" stored secrets under a key everybody knows.
var errWeakKey = errors.New("PERGOLA_SECRET_KEY: refused: every byte of the key is the same, " +
	"so anyone can guess it; generate a key with `pergola secret` " +
	"(or `openssl rand -hex 32`) and keep it: stored secrets are encrypted with it")

// refuseWeakKey fails for keys whose bytes are all the same (all zeros,
// all ones, ...), the placeholders people paste.
func refuseWeakKey(key []byte) error {
	for _, b := range key {
		if b != key[0] {
			return nil
		}
	}
	return errWeakKey
}
