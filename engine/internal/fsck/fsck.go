package fsck

import (
	"context"
	"encoding/json"

	"cairn/objects"
)

// Reporter reports a problem or a note at where.
type Reporter func(where, format string, a ...any)

// Objects verifies every object of objs, reporting each that fails, and
// returns how many it walked and those that failed verification.
func Objects(ctx context.Context, objs *objects.Store, bad Reporter) (n int, broken map[objects.ID]error) {
	broken = map[objects.ID]error{}
	werr := objs.Walk(ctx, func(info objects.Info) error {
		n++
		if err := objs.Verify(ctx, info.ID); err != nil {
			bad(objs.Path(info.ID, info.Compressed), "%v", err)
			broken[info.ID] = err
		}
		return nil
	})
	for _, p := range objects.Problems(werr) {
		bad(p.Path, "%v", p.Err)
	}
	if werr != nil && len(objects.Problems(werr)) == 0 {
		bad(objs.Dir(), "%v", werr)
	}
	return n, broken
}

// OIDsIn finds every "oid" field in a journal line, at any depth.
func OIDsIn(b []byte) []string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "oid" {
					out = append(out, s)
				} else {
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}
