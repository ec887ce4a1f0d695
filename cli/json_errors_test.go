package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// A failing command's --json error object says what its stderr line says,
// in the user's words: never the name of a package inside cairn
// ("engine: ..."), whichever command failed and however.
func TestJSONErrorSpeaksAsStderr(t *testing.T) {
	e := newRefEnv(t)
	internal := regexp.MustCompile(`(^|: )(engine|journal|objects|index|vfs|term|wskey|ids|fstate|scope|httpapi): `)
	for _, args := range [][]string{
		{"show", "no-such-session"},
		{"fork", e.id, "--at", "i-0000"},
		{"append", "--session", e.id, "--type", "assistant", "--parent", "i-0000", "x"},
		{"undo", "--session", e.id},
		{"output", e.id, "output-0000"},
		{"task", e.id, "t-0000"},
		{"compact", e.id, "--up-to", "i-0000"},
		{"rename", e.id, "   "},
	} {
		code, out, errs := e.run(t, "", append([]string{"--json"}, args...)...)
		var obj struct {
			OK    *bool  `json:"ok"`
			Code  string `json:"code"`
			Error string `json:"error"`
		}
		if code == 0 || json.Unmarshal([]byte(out), &obj) != nil || obj.OK == nil || *obj.OK || obj.Code == "" {
			t.Errorf("cairn --json %q: exit %d, stdout %q: want a failure and its JSON object", args, code, out)
			continue
		}
		line := strings.TrimSuffix(strings.TrimPrefix(errs, "cairn: "), "\n")
		if internal.MatchString(obj.Error) || internal.MatchString(line) {
			t.Errorf("cairn --json %q names a package of cairn: error %q, stderr %q", args, obj.Error, errs)
		}
		if args[0] != "show" && strings.Contains(line, "no such session") {
			t.Errorf("cairn --json %q: %q blames a session that exists", args, line)
		}
		if obj.Error != line {
			t.Errorf("cairn --json %q: the JSON error %q is not the stderr line %q", args, obj.Error, line)
		}
	}
}
