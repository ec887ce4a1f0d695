package hookcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// An agent's settings file, as `cairn hook install` reads and writes it:
// JSON whose objects keep their keys in the order the file has them, and
// whose numbers and other scalars keep their spelling, so that merging
// cairn's hook entries in (and taking them out) changes nothing else.

// jObj is a JSON object with its keys in file order.
type jObj struct {
	keys []string
	vals map[string]any // *jObj, []any, or jRaw
}

// jRaw is a scalar as the file spells it (a number, true, false, null) or
// a string (kept decoded, written back escaped).
type jRaw struct {
	lit string // set for a number, true, false, null
	str string
}

func newObj() *jObj { return &jObj{vals: map[string]any{}} }

func (o *jObj) get(k string) any { return o.vals[k] }

// set puts k last when it is new, in place when it is not.
func (o *jObj) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jObj) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func jStr(s string) jRaw { return jRaw{str: s} }

// parseJSONOrdered reads one JSON value, objects as *jObj; trailing data
// other than white space is an error.
func parseJSONOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := readJSONValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func readJSONValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObj()
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readJSONValue(d)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; dup {
					return nil, fmt.Errorf("key %q appears twice in one object", k)
				}
				o.set(k, v)
			}
			_, err := d.Token()
			return o, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := readJSONValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return jRaw{str: t}, nil
	case json.Number:
		return jRaw{lit: t.String()}, nil
	case bool:
		return jRaw{lit: fmt.Sprint(t)}, nil
	case nil:
		return jRaw{lit: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", t)
}

// writeJSONOrdered writes v indented by two spaces, as the agents write
// their settings files, with a final newline.
func writeJSONOrdered(v any) []byte {
	var b bytes.Buffer
	writeJSONValue(&b, v, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func writeJSONValue(b *bytes.Buffer, v any, indent string) {
	in := indent + "  "
	switch v := v.(type) {
	case *jObj:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(in)
			writeJSONString(b, k)
			b.WriteString(": ")
			writeJSONValue(b, v.vals[k], in)
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range v {
			b.WriteString(in)
			writeJSONValue(b, x, in)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case jRaw:
		if v.lit != "" {
			b.WriteString(v.lit)
		} else {
			writeJSONString(b, v.str)
		}
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.WriteString(strings.TrimSuffix(e.String(), "\n"))
}
