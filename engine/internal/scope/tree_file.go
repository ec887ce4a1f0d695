package scope

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"strings"
)

// A walk kept between two processes: an agent's pre-tool hook walks
// before the agent's shell command runs, its post-tool hook (another
// process) walks again and diffs with it. Part of the format:
//
//	"cairn-scopetree\n"   16 bytes of magic
//	uvarint version       1
//	uvarint count
//	count entries, sorted by path (byte order):
//	  uvarint len, path   slash-separated, relative to the workspace
//	  uvarint mode (Go fs.FileMode bits), varint size,
//	  varint mtime ns, varint ctime ns, uvarint inode
//	  32 bytes            SHA-256 of the content (zero: a folder or a skipped file)
//	  uvarint len, link   a link's target ("" otherwise)
//	  uvarint len, why    why a file was not read ("" when read)
//	32 bytes              SHA-256 of everything before it
//
// Files and Bytes are counted again from the entries.
const (
	treeMagic   = "cairn-scopetree\n"
	treeVersion = 1
)

// ErrTreeCorrupt is a kept walk that cannot be read back.
var ErrTreeCorrupt = errors.New("scope: kept walk corrupt")

// EncodeTree is t in the format above.
func EncodeTree(t *Tree) []byte {
	b := make([]byte, 0, 64+t.Len()*96)
	b = append(b, treeMagic...)
	b = binary.AppendUvarint(b, treeVersion)
	b = binary.AppendUvarint(b, uint64(t.Len()))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for e := range t.All() {
		str(e.Path)
		b = binary.AppendUvarint(b, uint64(e.Mode))
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.MtimeNS)
		b = binary.AppendVarint(b, e.CtimeNS)
		b = binary.AppendUvarint(b, e.Ino)
		b = append(b, e.Hash[:]...)
		str(e.Link)
		str(e.Skipped)
	}
	s := sha256.Sum256(b)
	return append(b, s[:]...)
}

// DecodeTree reads a tree EncodeTree wrote; anything else is
// ErrTreeCorrupt.
func DecodeTree(data []byte) (*Tree, error) {
	if len(data) < len(treeMagic)+sha256.Size || string(data[:len(treeMagic)]) != treeMagic {
		return nil, ErrTreeCorrupt
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, ErrTreeCorrupt
	}
	r := bytes.NewReader(body[len(treeMagic):])
	if v, err := binary.ReadUvarint(r); err != nil || v != treeVersion {
		return nil, ErrTreeCorrupt
	}
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(len(body)) {
		return nil, ErrTreeCorrupt
	}
	str := func() (string, error) {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > uint64(r.Len()) {
			return "", ErrTreeCorrupt
		}
		p := make([]byte, l)
		io.ReadFull(r, p)
		return string(p), nil
	}
	ents := make([]Entry, n)
	for i := range ents {
		e := &ents[i]
		var mode uint64
		var errs [9]error
		e.Path, errs[0] = str()
		mode, errs[1] = binary.ReadUvarint(r)
		e.Size, errs[2] = binary.ReadVarint(r)
		e.MtimeNS, errs[3] = binary.ReadVarint(r)
		e.CtimeNS, errs[4] = binary.ReadVarint(r)
		e.Ino, errs[5] = binary.ReadUvarint(r)
		_, errs[6] = io.ReadFull(r, e.Hash[:])
		e.Link, errs[7] = str()
		e.Skipped, errs[8] = str()
		if errors.Join(errs[:]...) != nil || mode > 1<<32-1 || e.Path == "" || (i > 0 && strings.Compare(ents[i-1].Path, e.Path) >= 0) {
			return nil, ErrTreeCorrupt
		}
		e.Mode = fs.FileMode(mode)
	}
	if r.Len() != 0 {
		return nil, ErrTreeCorrupt
	}
	return NewTree(ents), nil
}
