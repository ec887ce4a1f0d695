package attach

import (
	"encoding/binary"
	"strings"
)

// Sniffing the media type of content whose name says nothing: the
// patterns of the WHATWG MIME Sniffing Standard
// (https://mimesniff.spec.whatwg.org/), in the order and with the answers
// of net/http.DetectContentType (TestSniffAsNetHTTP holds them equal).
// Not net/http's own: linking net/http puts its package init, and that of
// crypto/tls under it, into every program that links the engine, the hook
// program too, which an agent starts at every tool call (about 45 of its
// 550 page faults).

// sniffLen is how much of the content the patterns look at.
const sniffLen = 512

// sniffKind is how a pattern matches.
type sniffKind uint8

const (
	sniffMasked sniffKind = iota // the content's first bytes, masked, are pat
	sniffSkipWS                  // the same after leading whitespace
	sniffHTML                    // a tag: pat after leading whitespace, letters in any case, then ' ' or '>'
	sniffMP4                     // an ISO media file whose brand is mp4
)

// sniffPattern is one pattern: its bytes, and mask ("" for every bit of
// each byte), and the media type it names.
type sniffPattern struct {
	kind      sniffKind
	pat, mask string
	mediaType string
}

// sniffPatterns are the patterns, the first that matches deciding;
// content that matches none is text when it holds no binary byte.
func sniffPatterns() []sniffPattern {
	const html = "text/html; charset=utf-8"
	const riff = "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF"
	return []sniffPattern{
		{sniffHTML, "<!DOCTYPE HTML", "", html},
		{sniffHTML, "<HTML", "", html},
		{sniffHTML, "<HEAD", "", html},
		{sniffHTML, "<SCRIPT", "", html},
		{sniffHTML, "<IFRAME", "", html},
		{sniffHTML, "<H1", "", html},
		{sniffHTML, "<DIV", "", html},
		{sniffHTML, "<FONT", "", html},
		{sniffHTML, "<TABLE", "", html},
		{sniffHTML, "<A", "", html},
		{sniffHTML, "<STYLE", "", html},
		{sniffHTML, "<TITLE", "", html},
		{sniffHTML, "<B", "", html},
		{sniffHTML, "<BODY", "", html},
		{sniffHTML, "<BR", "", html},
		{sniffHTML, "<P", "", html},
		{sniffHTML, "<!--", "", html},
		{sniffSkipWS, "<?xml", "", "text/xml; charset=utf-8"},
		{sniffMasked, "%PDF-", "", "application/pdf"},
		{sniffMasked, "%!PS-Adobe-", "", "application/postscript"},
		// Byte order marks.
		{sniffMasked, "\xFE\xFF\x00\x00", "\xFF\xFF\x00\x00", "text/plain; charset=utf-16be"},
		{sniffMasked, "\xFF\xFE\x00\x00", "\xFF\xFF\x00\x00", "text/plain; charset=utf-16le"},
		{sniffMasked, "\xEF\xBB\xBF\x00", "\xFF\xFF\xFF\x00", "text/plain; charset=utf-8"},
		// Images.
		{sniffMasked, "\x00\x00\x01\x00", "", "image/x-icon"},
		{sniffMasked, "\x00\x00\x02\x00", "", "image/x-icon"},
		{sniffMasked, "BM", "", "image/bmp"},
		{sniffMasked, "GIF87a", "", "image/gif"},
		{sniffMasked, "GIF89a", "", "image/gif"},
		{sniffMasked, "RIFF\x00\x00\x00\x00WEBPVP", riff + "\xFF\xFF", "image/webp"},
		{sniffMasked, "\x89PNG\x0D\x0A\x1A\x0A", "", "image/png"},
		{sniffMasked, "\xFF\xD8\xFF", "", "image/jpeg"},
		// Audio and video, in the standard's order.
		{sniffMasked, "FORM\x00\x00\x00\x00AIFF", riff, "audio/aiff"},
		{sniffMasked, "ID3", "", "audio/mpeg"},
		{sniffMasked, "OggS\x00", "", "application/ogg"},
		{sniffMasked, "MThd\x00\x00\x00\x06", "", "audio/midi"},
		{sniffMasked, "RIFF\x00\x00\x00\x00AVI ", riff, "video/avi"},
		{sniffMasked, "RIFF\x00\x00\x00\x00WAVE", riff, "audio/wave"},
		{sniffMP4, "", "", "video/mp4"},
		{sniffMasked, "\x1A\x45\xDF\xA3", "", "video/webm"},
		// Fonts: an embedded OpenType font is 34 bytes of anything, then "LP".
		{sniffMasked, strings.Repeat("\x00", 34) + "LP", strings.Repeat("\x00", 34) + "\xFF\xFF", "application/vnd.ms-fontobject"},
		{sniffMasked, "\x00\x01\x00\x00", "", "font/ttf"},
		{sniffMasked, "OTTO", "", "font/otf"},
		{sniffMasked, "ttcf", "", "font/collection"},
		{sniffMasked, "wOFF", "", "font/woff"},
		{sniffMasked, "wOF2", "", "font/woff2"},
		// Archives; RAR's as RAR Labs define them (v1.5 to 4, then 5).
		{sniffMasked, "\x1F\x8B\x08", "", "application/x-gzip"},
		{sniffMasked, "PK\x03\x04", "", "application/zip"},
		{sniffMasked, "Rar!\x1A\x07\x00", "", "application/x-rar-compressed"},
		{sniffMasked, "Rar!\x1A\x07\x01\x00", "", "application/x-rar-compressed"},
		{sniffMasked, "\x00asm", "", "application/wasm"},
	}
}

// sniff is the media type of content that starts with data:
// application/octet-stream when no pattern matches and it is not text.
func sniff(data []byte) string {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	ws := 0
	for ws < len(data) && isWS(data[ws]) {
		ws++
	}
	for _, p := range sniffPatterns() {
		if p.match(data, data[ws:]) {
			return p.mediaType
		}
	}
	for _, b := range data[ws:] {
		if b <= 0x08 || b == 0x0B || 0x0E <= b && b <= 0x1A || 0x1C <= b && b <= 0x1F {
			return "application/octet-stream"
		}
	}
	return "text/plain; charset=utf-8"
}

// isWS reports whether b is whitespace as the standard means it.
func isWS(b byte) bool {
	return b == '\t' || b == '\n' || b == '\x0c' || b == '\r' || b == ' '
}

// match reports whether content that starts with data (trimmed, after
// its leading whitespace) matches p.
func (p sniffPattern) match(data, trimmed []byte) bool {
	switch p.kind {
	case sniffMP4:
		return isMP4(data)
	case sniffHTML:
		if len(trimmed) < len(p.pat)+1 {
			return false
		}
		for i := range len(p.pat) {
			b, d := p.pat[i], trimmed[i]
			if 'A' <= b && b <= 'Z' {
				d &= 0xDF
			}
			if b != d {
				return false
			}
		}
		return trimmed[len(p.pat)] == ' ' || trimmed[len(p.pat)] == '>'
	case sniffSkipWS:
		data = trimmed
	}
	if len(data) < len(p.pat) {
		return false
	}
	for i := range len(p.pat) {
		d := data[i]
		if p.mask != "" {
			d &= p.mask[i]
		}
		if d != p.pat[i] {
			return false
		}
	}
	return true
}

// isMP4 reports whether data starts with an ISO media file's ftyp box
// whose major or a compatible brand starts with "mp4" (the major
// brand's version is not looked at).
func isMP4(data []byte) bool {
	if len(data) < 12 {
		return false
	}
	size := int(binary.BigEndian.Uint32(data[:4]))
	if len(data) < size || size%4 != 0 || string(data[4:8]) != "ftyp" {
		return false
	}
	for at := 8; at < size; at += 4 {
		if at != 12 && string(data[at:at+3]) == "mp4" {
			return true
		}
	}
	return false
}
