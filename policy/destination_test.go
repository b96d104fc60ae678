package policy

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

// fakeResolver answers from a table: these tests resolve nothing for real
// and send no traffic anywhere.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestDestinations(t *testing.T) {
	names := fakeResolver{
		"example.test":   {"93.184.215.14"},
		"rebind.test":    {"93.184.215.14", "169.254.169.254"},
		"intranet.test":  {"10.1.2.3"},
		"meta-v6.test":   {"fe80::1"},
		"mapped.test":    {"::ffff:169.254.169.254"},
		"public-v6.test": {"2001:db8::1"},
	}
	local := Destinations{Resolver: names}
	hosted := Destinations{Resolver: names, DenyPrivate: true}
	open := Destinations{Resolver: names, AllowLinkLocal: true}
	cases := []struct {
		url                string
		local, hosted, ok3 bool // allowed by local, hosted, and local with AllowLinkLocal
	}{
		{"http://127.0.0.1:8080/", true, false, true},
		{"http://[::1]/", true, false, true},
		{"http://localhost:3000/", true, false, true},
		{"http://app.localhost/", true, false, true},
		{"http://0.0.0.0/", true, false, true},
		{"http://10.0.0.1/", true, false, true},
		{"http://172.16.5.4/", true, false, true},
		{"http://192.168.1.1/", true, false, true},
		{"http://100.64.0.1/", true, false, true},
		{"http://[fd12::1]/", true, false, true},
		{"http://169.254.169.254/latest/meta-data/", false, false, true},
		{"http://169.254.0.0/", false, false, true},
		{"http://169.254.255.255/", false, false, true},
		{"http://169.255.0.1/", true, true, true}, // one past the link-local range
		{"http://169.253.255.255/", true, true, true},
		{"http://[fe80::1]/", false, false, true},
		{"http://[febf::1]/", false, false, true},
		{"http://[fec0::1]/", true, true, true}, // one past fe80::/10
		{"http://[::ffff:169.254.169.254]/", false, false, true},
		{"http://100.100.100.200/", false, false, true},
		{"http://[fd00:ec2::254]/", false, false, true},
		{"http://metadata.google.internal/computeMetadata/v1/", false, false, true},
		{"http://METADATA.GOOGLE.INTERNAL./", false, false, true},
		{"http://metadata/", false, false, true},
		{"http://instance-data.ec2.internal/", false, false, true},
		{"https://example.test/", true, true, true},
		{"https://rebind.test/", false, false, true},
		{"https://intranet.test/", true, false, true},
		{"https://meta-v6.test/", false, false, true},
		{"https://mapped.test/", false, false, true},
		{"https://public-v6.test/", true, true, true},
		{"https://unresolvable.test/", true, false, true},
	}
	ctx := context.Background()
	for _, c := range cases {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct {
			name string
			d    Destinations
			want bool
		}{{"local", local, c.local}, {"hosted", hosted, c.hosted}, {"allow-link-local", open, c.ok3}} {
			err := m.d.Check(ctx, u)
			if got := err == nil; got != m.want {
				t.Errorf("%s: %s allowed=%v, want %v (%v)", m.name, c.url, got, m.want, err)
			}
			if err != nil && errcode.Of(err) != errcode.ForeignOrigin {
				t.Errorf("%s: %s: code %s, want foreign_origin", m.name, c.url, errcode.Of(err))
			}
		}
	}
}

// CheckAddr is asked for every address of every request and connection of
// a page: an allowed address costs no allocation (a refusal builds its
// error).
func TestCheckAddrAllocatesNothing(t *testing.T) {
	d := Destinations{DenyPrivate: true}
	public := netip.MustParseAddr("93.184.216.34")
	if n := testing.AllocsPerRun(100, func() {
		if err := d.CheckAddr(public); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("an allowed address cost %.0f allocations", n)
	}
}
