package fsck

import (
	"errors"
	"maps"
	"slices"

	"cairn/objects"
)

// References reports every journal line that names an object the
// workspace's store does not hold, or one that failed verification
// (broken): the line whose item or file state cannot be read back. The
// line is never rewritten; putting a good object file back mends it.
// named maps an oid to the journal lines ("path:line") naming it.
func References(objs *objects.Store, named map[string][]string, broken map[objects.ID]error, bad Reporter) {
	for _, oid := range slices.Sorted(maps.Keys(named)) {
		where := named[oid]
		id, err := objects.ParseID(oid)
		var why string
		switch {
		case err != nil:
			for _, w := range where {
				bad(w, "names a bad object id %q", oid)
			}
			continue
		case broken[id] != nil:
			why = "which is unreadable"
			if errors.Is(broken[id], objects.ErrMismatch) {
				why = "which is corrupt (it does not hash to its name)"
			}
		default:
			ok, err := objs.Has(id)
			switch {
			case err != nil:
				why = "which cannot be checked: " + err.Error()
			case !ok:
				why = "which is missing"
			default:
				continue
			}
		}
		for _, w := range where {
			bad(w, "names object %s, %s", oid, why)
		}
	}
}
