package httpapi_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/httpapi/httpapitest"
)

// TestServerRefusesBrowserCalls: a request a web page may have made is
// refused (403) before its token is looked at, and changes nothing: a Host
// that is not a loopback name with the server's port (DNS rebinding: a
// page's own name resolved to 127.0.0.1), an Origin that is not the
// server's own, a cross-site Sec-Fetch-Site. What a client that is not a
// browser sends (the loopback name it dialled, no Origin) is served.
func TestServerRefusesBrowserCalls(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	f.Write(id, "a.txt", "one")
	f.Write(id, "a.txt", "two")
	u, err := url.Parse(f.Srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	other := "1"
	if port == "1" {
		other = "2"
	}

	// send makes a request to the server's address whatever the URL's host
	// says, as a browser whose DNS was rebound to 127.0.0.1 does.
	send := func(method, host string, header map[string]string) httpapitest.Answer {
		t.Helper()
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader(`{"action":"undo"}`)
		}
		path := httpapitest.SnapshotsPath(id)
		if method == "POST" {
			path = httpapitest.RestorePath(id)
		}
		req, err := http.NewRequest(method, "http://"+host+path, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+f.Gateway)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		dial := &net.Dialer{}
		client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dial.DialContext(ctx, network, u.Host)
		}}}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return httpapitest.Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
	}
	cursor := func() int {
		t.Helper()
		var l engine.SnapshotList
		f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, "").JSON(t, &l)
		return l.Cursor
	}

	for _, c := range []struct {
		name, host string
		header     map[string]string
	}{
		{"DNS rebinding: a page's name", "evil.example.com:" + port, nil},
		{"another name", "attacker.com:" + port, nil},
		{"a name without a port", "evil.example.com", nil},
		{"loopback, another port", "127.0.0.1:" + other, nil},
		{"localhost, another port", "localhost:" + other, nil},
		{"a page's Origin", "127.0.0.1:" + port, map[string]string{"Origin": "http://evil.example.com"}},
		{"a rebound page's Origin", "127.0.0.1:" + port, map[string]string{"Origin": "http://evil.example.com:" + port}},
		{"the null Origin", "127.0.0.1:" + port, map[string]string{"Origin": "null"}},
		{"Origin of another loopback port", "127.0.0.1:" + port, map[string]string{"Origin": "http://127.0.0.1:" + other}},
		{"a cross-site fetch", "127.0.0.1:" + port, map[string]string{"Sec-Fetch-Site": "cross-site"}},
	} {
		for _, method := range []string{"GET", "POST", "OPTIONS"} {
			before := cursor()
			a := send(method, c.host, c.header)
			f.Want(a, http.StatusForbidden, "forbidden")
			for k := range a.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("%s %s: answer has %s", c.name, method, k)
				}
			}
			if got := cursor(); got != before || f.Read("a.txt") != "two" {
				t.Fatalf("%s %s: refused, yet the cursor is %d (was %d), a.txt %q", c.name, method, got, before, f.Read("a.txt"))
			}
		}
	}

	// The names of loopback, with the server's port; the server's own
	// Origin; a fetch a user made (Sec-Fetch-Site none).
	for _, c := range []struct {
		host   string
		header map[string]string
	}{
		{"127.0.0.1:" + port, nil},
		{"localhost:" + port, nil},
		{"LocalHost:" + port, nil},
		{"[::1]:" + port, nil},
		{"127.0.0.1:" + port, map[string]string{"Origin": "http://127.0.0.1:" + port}},
		{"localhost:" + port, map[string]string{"Sec-Fetch-Site": "none"}},
	} {
		f.Want(send("GET", c.host, c.header), http.StatusOK, "")
	}
	before := cursor()
	f.Want(send("POST", "localhost:"+port, nil), http.StatusOK, "")
	if got := cursor(); got != before-1 || f.Read("a.txt") != "one" {
		t.Fatalf("undo by localhost: cursor %d (was %d), a.txt %q", got, before, f.Read("a.txt"))
	}
}
