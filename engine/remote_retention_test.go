package engine

import (
	"context"
	"strings"
	"testing"

	"cairn/engine/internal/remote"
	"cairn/engine/retention"
	"cairn/objects"
)

func TestRemoteForgetPruneAndFsck(t *testing.T) { remoteKinds(t, remoteForgetPruneAndFsck) }

func remoteForgetPruneAndFsck(t *testing.T, newURL func(t *testing.T) string) {
	ctx := context.Background()
	a, b, _, project := faultMachines(t, newURL(t))
	gone, long := aSession(t, a, project)
	// A second session of A's with an object of its own.
	w, _ := a.Workspace(project)
	own := w.Create(SessionOptions{})
	ownText := strings.Repeat("only in the forgotten one ", 2000)
	own.Append(ctx, Item{Type: User, Text: "mine"})
	own.Append(ctx, Item{Type: Assistant, Text: ownText})
	own.EndTurn(ctx, Turn{Model: "m"})
	own.Close()
	if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	// Machine B writes a session naming the same payload as A's first:
	// the object went up once, from A.
	wb, _ := b.Workspace(project)
	kept := wb.Create(SessionOptions{})
	kept.Append(ctx, Item{Type: User, Text: "same payload"})
	kept.Append(ctx, Item{Type: Assistant, Text: long})
	kept.EndTurn(ctx, Turn{Model: "m"})
	keptID := kept.ID()
	kept.Close()
	if rep, err := b.Sync(ctx, "", SyncOptions{}); err != nil || rep.Pushed.ObjectsThere == 0 {
		t.Fatalf("B's push: %+v, %v", rep, err)
	}

	// A forgets both of its sessions on the remote.
	rep, err := a.RemoteForget(ctx, "", retention.Policy{}, []string{gone, own.ID()}, false)
	if err != nil || len(rep.Remove) != 2 {
		t.Fatalf("forget: %+v, %v", rep, err)
	}
	sy, err := a.syncer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{gone, own.ID()} {
		if _, err := sy.Bucket.Attrs(ctx, "tombstones/"+id+".json"); err != nil {
			t.Fatalf("no tombstone for %s: %v", id, err)
		}
	}
	// A's next push does not bring them back; B's listing drops them.
	if rep, err := a.Sync(ctx, "", SyncOptions{}); err != nil || rep.Pushed.Segments != 0 {
		t.Fatalf("a push after the forget: %+v, %v", rep, err)
	}
	cards, err := b.RemoteSessions(ctx, "")
	if err != nil || len(cards) != 1 || cards[0].ID != keptID {
		t.Fatalf("B's remote listing after the forget: %+v, %v", cards, err)
	}

	// A prune with no grace removes the object only the forgotten
	// session named, and keeps the one B's live session names.
	if _, err := sy.Prune(ctx, 0); err != nil {
		t.Fatal(err)
	}
	sharedID := objects.Sum([]byte(long))
	ownID := objects.Sum([]byte(ownText))
	has := func(id objects.ID) bool {
		for _, z := range []bool{false, true} {
			k := "objects/" + id.String()[:2] + "/" + id.String()[2:]
			if z {
				k += ".zst"
			}
			if _, err := sy.Bucket.Attrs(ctx, k); err == nil {
				return true
			}
		}
		return false
	}
	if !has(sharedID) {
		t.Fatal("prune removed an object a live session of another machine names")
	}
	if has(ownID) {
		t.Fatal("prune kept an object nothing live names")
	}

	// fsck: clean, then a damaged object is named.
	frep, err := a.RemoteFsck(ctx, "", nil)
	if err != nil || len(frep.Problems) != 0 || frep.Objects == 0 {
		t.Fatalf("fsck of a sound remote: %+v, %v", frep, err)
	}
	var victim string
	sy.Bucket.List(ctx, "objects/", func(e remote.Entry) error { victim = e.Key; return nil })
	bad := "not what it was"
	if err := sy.Bucket.Put(ctx, victim, strings.NewReader(bad), int64(len(bad)), remote.Cond{}); err != nil {
		t.Fatal(err)
	}
	frep, err = a.RemoteFsck(ctx, "", nil)
	if err != nil || len(frep.Problems) == 0 {
		t.Fatalf("fsck missed a damaged object: %+v, %v", frep, err)
	}
}
