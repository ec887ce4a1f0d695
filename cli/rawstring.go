package cli

import (
	"fmt"
	"reflect"

	"github.com/alecthomas/kong"
)

// rawString decodes a string argument or flag value as its bytes. kong's
// own string mapper passes the value through encoding/json, which turns
// bytes that are not UTF-8 into U+FFFD: a file name such as "x\xff" would
// name another file ("x\uFFFD"), and a tool would write that one.
type rawString struct{}

func (rawString) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("string")
	if err != nil {
		return err
	}
	if s, ok := t.Value.(string); ok {
		target.SetString(s)
	} else {
		target.SetString(fmt.Sprint(t.Value))
	}
	return nil
}
