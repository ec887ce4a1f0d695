package httpapi

import (
	"net"
	"net/http"
	"strconv"
	"strings"
)

// A web page must not be able to call the API. A page cannot read the
// bearer token, but it can send requests to a loopback address, and DNS
// rebinding makes a name of its own (evil.example) resolve to 127.0.0.1
// while its requests still carry that name in Host. So, before the token is
// looked at, checkBrowser refuses (403 forbidden):
//
//   - on a loopback address, a request whose Host is not a loopback name
//     (localhost, or a loopback address such as 127.0.0.1 or [::1]) with
//     the port the server listens on; a server bound to another address
//     (--allow-remote) is reached by names it cannot know, and its Host is
//     not checked;
//   - any request a browser marks as made from another site: an Origin
//     header that is not the server's own origin ("http://" + Host), or a
//     Sec-Fetch-Site other than same-origin or none. The API serves no
//     page, so no browser call is its own; clients that are not browsers
//     send neither header.
//
// The standard library's CrossOriginProtection checks the second for the
// unsafe methods only; here a GET is refused too, as it would read a
// session's file list.
func checkBrowser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := browserRefusal(r); msg != "" {
			writeError(w, http.StatusForbidden, "forbidden", msg, 0)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// browserRefusal says why r is refused, or "".
func browserRefusal(r *http.Request) string {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if local == nil || local.IP.IsLoopback() {
		host, port, ok := splitHost(r.Host)
		switch {
		case !loopbackName(host):
			return "the request's Host is not a loopback name (localhost, 127.0.0.1, [::1]): this server answers only requests made to it by such a name"
		case local != nil && port != local.Port || !ok:
			return "the request's Host does not name this server's port"
		}
	}
	if origin, sent := r.Header["Origin"]; sent && (len(origin) != 1 || !strings.EqualFold(origin[0], "http://"+r.Host)) {
		return "a request from a web page (its Origin is not this server's) is refused"
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return "a request from a web page (Sec-Fetch-Site " + site + ") is refused"
	}
	return ""
}

// splitHost is a Host header's name and port (80 when it has none); ok is
// false when the port is not a number.
func splitHost(hostport string) (host string, port int, ok bool) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: the whole is the name, and the port is HTTP's.
		return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), 80, true
	}
	n, err := strconv.Atoi(p)
	return host, n, err == nil
}

// loopbackName reports whether host is localhost or a loopback address.
func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
