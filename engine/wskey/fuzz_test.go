package wskey

import (
	"errors"
	"path"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{"/", "/home/me/my-proj", "/a b", "/100%", "/é/日", "/a~b", "/" + strings.Repeat("z-", 150)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := Decode(Encode(p))
		if p == "" {
			if !errors.Is(err, ErrBadKey) {
				t.Fatalf("Decode(\"\") err = %v", err)
			}
			return
		}
		if err != nil || got != p {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", p, got, err)
		}
		k := Key(p)
		if len(k) > MaxKeyLen+1+HashLen {
			t.Fatalf("len(Key) = %d", len(k))
		}
		if len(Encode(p)) <= MaxKeyLen && k != Encode(p) {
			t.Fatalf("short key changed")
		}
		if _, err := Decode(k); len(Encode(p)) > MaxKeyLen && !errors.Is(err, ErrNotReversible) {
			t.Fatalf("Decode(long key) err = %v", err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"-", "-a%2Db", "-a~2", "-a~0123456789abcdef", "%", "-%2", "-%41", "~", "-a%7E", "-a~02"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		p, err := Decode(key)
		if err != nil {
			if !errors.Is(err, ErrBadKey) && !errors.Is(err, ErrNotReversible) {
				t.Fatalf("Decode(%q): unexpected error %v", key, err)
			}
			return
		}
		if Encode(p) != key {
			t.Fatalf("Decode(%q) = %q, but Encode gives %q", key, p, Encode(p))
		}
	})
}

// FuzzVerify: whatever a workspace.json holds, Verify accepts a folder only
// for an absolute, clean path whose Resolve is that folder.
func FuzzVerify(f *testing.F) {
	for _, c := range []struct{ folder, info string }{
		{"/home/me/proj", `{"v":1,"path":"/home/me/proj","created_at":"2026-11-29T09:12:03.120Z"}`},
		{"/home/me/proj", `{"v":1,"path":"/tmp/victim"}`},
		{"/home/me/proj", `{"v":1,"path":"rel/dir"}`},
		{"/a/../b", `{"v":1,"path":"/a/../b"}`},
		{"/x", `{"v":1,"path":"/x"`},
		{"/x", ``},
	} {
		f.Add(c.folder, []byte(c.info))
	}
	f.Fuzz(func(t *testing.T, folderPath string, info []byte) {
		if folderPath == "" || strings.ContainsRune(folderPath, 0) {
			return
		}
		fsys := vfs.NewMem()
		key := Key(folderPath)
		if err := fsys.MkdirAll(path.Join("workspaces", key), vfs.DirPerm); err != nil {
			return
		}
		if len(info) > 0 {
			if err := vfs.WriteFileAtomic(fsys, path.Join("workspaces", key, InfoFile), info); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Verify(fsys, "workspaces", key)
		if err != nil {
			if p != "" {
				t.Fatalf("error %v with path %q", err, p)
			}
			return
		}
		if !strings.HasPrefix(p, "/") || path.Clean(p) != p {
			t.Fatalf("Verify accepted path %q", p)
		}
		if got, _, err := Resolve(fsys, "workspaces", p, false, nil); err != nil || got != key {
			t.Fatalf("Verify gave %q for %s, whose Resolve is %q %v", p, key, got, err)
		}
	})
}
