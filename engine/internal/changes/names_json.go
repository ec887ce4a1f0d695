package changes

import (
	"encoding/json"

	"cairn/engine/internal/fstate"
)

// The files of the lines name paths, which are bytes: each is written as
// an fstate.Name (a JSON string when it is UTF-8, else its bytes in
// base64), and read in either form. The line shapes for writing carry a
// plain string; these methods put the name form around it. The shapes for
// reading (RawFile, the timeline's) hold an fstate.Name field instead,
// which costs a read less than a method on the whole file.

func (f FileChange) MarshalJSON() ([]byte, error) {
	type plain FileChange
	return json.Marshal(struct {
		Path fstate.Name `json:"path"`
		plain
	}{fstate.Name(f.Path), plain(f)})
}

func (f *FileChange) UnmarshalJSON(b []byte) error {
	type plain FileChange
	v := struct {
		Path fstate.Name `json:"path"`
		*plain
	}{plain: (*plain)(f)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	f.Path = string(v.Path)
	return nil
}

func (f KeptFile) MarshalJSON() ([]byte, error) {
	type plain KeptFile
	return json.Marshal(struct {
		Path fstate.Name `json:"path"`
		plain
	}{fstate.Name(f.Path), plain(f)})
}

func (f *KeptFile) UnmarshalJSON(b []byte) error {
	type plain KeptFile
	v := struct {
		Path fstate.Name `json:"path"`
		*plain
	}{plain: (*plain)(f)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	f.Path = string(v.Path)
	return nil
}

func (f DeniedFile) MarshalJSON() ([]byte, error) {
	type plain DeniedFile
	return json.Marshal(struct {
		Path fstate.Name `json:"path"`
		plain
	}{fstate.Name(f.Path), plain(f)})
}

func (f *DeniedFile) UnmarshalJSON(b []byte) error {
	type plain DeniedFile
	v := struct {
		Path fstate.Name `json:"path"`
		*plain
	}{plain: (*plain)(f)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	f.Path = string(v.Path)
	return nil
}

func (f RevertFile) MarshalJSON() ([]byte, error) {
	type plain RevertFile
	return json.Marshal(struct {
		Path fstate.Name `json:"path"`
		plain
	}{fstate.Name(f.Path), plain(f)})
}

func (f *RevertFile) UnmarshalJSON(b []byte) error {
	type plain RevertFile
	v := struct {
		Path fstate.Name `json:"path"`
		*plain
	}{plain: (*plain)(f)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	f.Path = string(v.Path)
	return nil
}
