package attach

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// sniffSamples are contents that reach each pattern and its edges: each
// pattern's bytes alone, one byte short, with bytes after, after
// whitespace, in lower case, and with a byte changed; mp4 boxes of each
// shape; text and binary bytes; over 512 bytes.
func sniffSamples() [][]byte {
	var out [][]byte
	add := func(b ...[]byte) { out = append(out, b...) }
	for _, p := range sniffPatterns() {
		pat := []byte(p.pat)
		if p.kind == sniffMP4 {
			continue
		}
		add(pat, pat[:len(pat)-1], append(bytes.Clone(pat), '>'), append(bytes.Clone(pat), ' ', 'x'),
			append(bytes.Clone(pat), "\x00\x01binary"...), append([]byte(" \t\r\n\x0c"), append(bytes.Clone(pat), '>')...),
			bytes.ToLower(append(bytes.Clone(pat), '>')), append(bytes.Clone(pat), bytes.Repeat([]byte("x"), 600)...))
		for i := range pat {
			c := append(bytes.Clone(pat), ' ')
			c[i] ^= 0x20
			add(c)
			c = append(bytes.Clone(pat), '>')
			c[i] ^= 0x01
			add(c)
		}
	}
	box := func(size int, brands ...string) []byte {
		b := []byte{byte(size >> 24), byte(size >> 16), byte(size >> 8), byte(size)}
		b = append(b, "ftyp"...)
		for _, br := range brands {
			b = append(b, br...)
		}
		return b
	}
	add(box(16, "mp42", "0000"), box(16, "isom", "mp41"), box(20, "isom", "0000", "mp42"), box(20, "isom", "mp4x", "abcd"),
		box(24, "isom", "0000", "avc1", "mp41"), box(17, "mp42", "0000", "x"), box(64, "mp42", "0000"), box(12, "mp42"),
		box(8, "mp42", "0000"), box(0, "mp42", "0000"), box(16, "qt  ", "0000"),
		// An mp4 box that is an embedded OpenType font's pattern too: mp4 comes first.
		box(40, "mp42", "0000", strings.Repeat("x", 18), "LP", "abcd"))
	add(nil, []byte{}, []byte("   "), []byte("plain text\n"), []byte("utf-8 é ✓"), []byte("tab\tand\r\nlines\x0c"),
		[]byte("\x1b[31mred\x1b[0m"), []byte("a\x00b"), []byte("x\x0by"), []byte("\x1c"), []byte("\x7f\x80\xff"),
		[]byte(strings.Repeat("text ", 200)+"\x00"), []byte("<html"), []byte("<htmlx>"), []byte("<!---->"), []byte("  <?xml"))
	return out
}

// TestSniffAsNetHTTP: for every sample and for random content (random
// bytes, and each pattern's bytes with random bytes after or in place of
// some), the media type sniffed is net/http.DetectContentType's.
func TestSniffAsNetHTTP(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		if got, want := sniff(b), http.DetectContentType(b); got != want {
			t.Fatalf("sniff(%q) = %q, net/http says %q", b, got, want)
		}
	}
	for _, b := range sniffSamples() {
		check(b)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pats := sniffPatterns()
	alphabet := []byte("\x00\x01\x08\x09\x0a\x0b\x0c\x0d\x1a\x1b\x1c\x20<>!-?%PKBMRIFDHTmp4ftypxl\x89\xff\xfe\xef\xbb\xbf")
	for range 20000 {
		var b []byte
		switch r.IntN(3) {
		case 0:
			b = make([]byte, r.IntN(40))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		case 1:
			b = []byte(pats[r.IntN(len(pats))].pat)
			for range r.IntN(4) {
				if len(b) > 0 {
					b[r.IntN(len(b))] = byte(r.IntN(256))
				}
			}
			b = append(b, byte(r.IntN(256)), alphabet[r.IntN(len(alphabet))])
		default:
			b = make([]byte, r.IntN(700))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
		}
		check(b)
	}
}

// FuzzSniff: any content is sniffed as net/http does.
func FuzzSniff(f *testing.F) {
	for _, b := range sniffSamples() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := sniff(b), http.DetectContentType(b); got != want {
			t.Fatalf("sniff(%q) = %q, net/http says %q", b, got, want)
		}
	})
}

// TestMediaTypeByNameThenContent: a known extension decides, in any case;
// else the content does.
func TestMediaTypeByNameThenContent(t *testing.T) {
	png := []byte("\x89PNG\x0D\x0A\x1A\x0A....")
	for _, c := range []struct{ name, head, want string }{
		{"a.PNG", "text", "image/png"},
		{"notes", string(png), "image/png"},
		{"notes", "just words", "text/plain; charset=utf-8"},
		{"blob", "\x00\x01\x02", "application/octet-stream"},
	} {
		if got := MediaType(c.name, []byte(c.head)); got != c.want {
			t.Fatalf("MediaType(%q, %q) = %q, want %q", c.name, c.head, got, c.want)
		}
	}
}
