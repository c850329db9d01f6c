package egress

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestClassify(t *testing.T) {
	ranges := blockedRanges()
	cases := []struct {
		addr string
		want string // a word of the reason; "" for allowed
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"10.0.0.1", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "metadata"},
		{"fd00:ec2::254", "metadata"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fd00::1", "unique-local"},
		{"fc00::1", "unique-local"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"100.100.100.200", "carrier-grade NAT"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"::ffff:127.0.0.1", "IPv6 form of 127.0.0.1, a loopback"},
		{"::ffff:169.254.169.254", "metadata"},
		{"::127.0.0.1", "IPv6 form of 127.0.0.1"},
		{"::10.0.0.1", "private"},
		{"64:ff9b::a00:1", "IPv6 form of 10.0.0.1"},
		{"2002:7f00:1::", "IPv6 form of 127.0.0.1"},
		{"::0.0.0.2", "IPv4-compatible"},
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"2606:4700:4700::1111", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			got := classify(ranges, netip.MustParseAddr(tc.addr))
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Fatalf("classify(%s) = %q, want it to say %q", tc.addr, got, tc.want)
			}
		})
	}
}

func TestParseAllowRejectsBadEntriesByName(t *testing.T) {
	for _, entry := range []string{"10.0.0.0/99", "http://db", "a b", "db:99999", "db:0", "*.x.test:80", "bad!host", "-"} {
		t.Run(entry, func(t *testing.T) {
			_, err := New(Config{Allow: []string{"127.0.0.1", entry}})
			if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), entry) {
				t.Fatalf("New(%q) = %v, want an invalid error naming the entry", entry, err)
			}
		})
	}
}

func TestAllowList(t *testing.T) {
	l, err := parseAllow([]string{"10.1.0.0/16", " 127.0.0.1 ", "", "[::1]:8080", "192.168.1.5:443", "DB.Internal.", "cache:6379", "*.svc.test"})
	if err != nil {
		t.Fatal(err)
	}
	addrs := []struct {
		addr string
		port uint16
		want bool
	}{
		{"10.1.2.3", 80, true},
		{"10.2.0.1", 80, false},
		{"127.0.0.1", 1, true},
		{"::ffff:127.0.0.1", 1, true},
		{"::1", 8080, true},
		{"::1", 8081, false},
		{"192.168.1.5", 443, true},
		{"192.168.1.5", 80, false},
	}
	for _, tc := range addrs {
		if got := l.allowsAddr(netip.MustParseAddr(tc.addr), tc.port); got != tc.want {
			t.Errorf("allowsAddr(%s, %d) = %v, want %v", tc.addr, tc.port, got, tc.want)
		}
	}
	names := []struct {
		name string
		port uint16
		want bool
	}{
		{"db.internal", 5432, true},
		{"cache", 6379, true},
		{"cache", 6380, false},
		{"a.svc.test", 80, true},
		{"svc.test", 80, false},
		{"other", 80, false},
	}
	for _, tc := range names {
		if got := l.allowsName(tc.name, tc.port); got != tc.want {
			t.Errorf("allowsName(%s, %d) = %v, want %v", tc.name, tc.port, got, tc.want)
		}
	}
}
