package remotews

import (
	"encoding/json"
	"errors"
	"fmt"

	"cairn/engine"
	"cairn/remotews/rpc"
)

// Errors of the client. Callers test them with errors.Is.
var (
	// ErrNoCairn: the host has no cairn where the client looked (ssh's
	// exit status 127).
	ErrNoCairn = errors.New("remotews: no cairn on the host")
	// ErrSSH: ssh itself failed (exit status 255): the host unreachable,
	// its key unknown, the user's key refused.
	ErrSSH = errors.New("remotews: ssh failed")
	// ErrVersion: the host's cairn speaks another protocol or format.
	ErrVersion = errors.New("remotews: the host's cairn is another version")
	// ErrGeneration: the workspace on the host is not the one the
	// session is bound to (another identity or generation).
	ErrGeneration = errors.New("remotews: the workspace was replaced")
	// ErrLost: the connection ended during a call, before its answer.
	ErrLost = errors.New("remotews: the connection to the host was lost")
	// ErrStart: the host's side did not start the protocol (it printed
	// something else, or ended without a word).
	ErrStart = errors.New("remotews: the host did not start cairn host")
)

// Error is an error answer of the host, or a failure to reach it. Is
// matches the engine's sentinels by its code, so the cairn command exits
// as it would for the same error locally, and ErrVersion, ErrGeneration,
// ErrNoCairn, ErrSSH, ErrStart and ErrLost by its kind.
type Error struct {
	Host string
	Code int64  // a Code* of the protocol; 0 for a failure to reach the host
	Kind error  // one of the package's errors, or nil
	Msg  string // what happened, in a person's words
	Data json.RawMessage
	Err  error // the cause, when there is one
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() []error {
	var out []error
	switch e.Code {
	case CodeBadInput:
		out = append(out, engine.ErrBadInput)
	case CodeRefused:
		out = append(out, engine.ErrRefused)
	case CodeBusy:
		out = append(out, engine.ErrBusy)
	case CodeNotFound:
		out = append(out, engine.ErrNotFound)
	}
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// Word is the one-word code of the error for a --json answer.
func (e *Error) Word() string {
	switch {
	case errors.Is(e.Kind, ErrNoCairn):
		return "no_cairn"
	case errors.Is(e.Kind, ErrSSH):
		return "ssh"
	case errors.Is(e.Kind, ErrVersion):
		return "version"
	case errors.Is(e.Kind, ErrGeneration):
		return "generation"
	case errors.Is(e.Kind, ErrLost):
		return "lost"
	case errors.Is(e.Kind, ErrStart):
		return "host_start"
	}
	return ""
}

// Refusal is the host's refusal (CodeRefused) as an engine.Refusal: Why
// is the host's reason. Only a refusal is one, so that the cairn command
// exits on a host's bad input, or any other error, as it would locally,
// not as on a refusal.
// A file revert or unrevert refused over conflicts carries the host's
// plan, as engine.RevertConflictError (errors.As finds it), so the
// command answers with the conflicts listed as it does locally.
type Refusal struct {
	Err      *Error
	Conflict *engine.RevertConflictError
	Reason   string // RefusedData.Why, when the host sent it
}

func (r *Refusal) Error() string { return r.Err.Msg }

// Why is the host's reason of the refusal, for engine.Refusal: as a
// local refusal's Why, without the word "refused" ("nothing to undo"),
// when the host sent it apart (RefusedData), else its whole message.
func (r *Refusal) Why() string {
	if r.Reason != "" {
		return r.Reason
	}
	return r.Err.Msg
}

func (r *Refusal) Unwrap() []error {
	if r.Conflict != nil {
		return []error{r.Err, r.Conflict}
	}
	return []error{r.Err}
}

// BoundPath is, for the error of a hello refused because its path is
// another folder than the session's (Hello.Bound), the folder the path
// is on the host.
func BoundPath(err error) (string, bool) {
	var re *Error
	if !errors.As(err, &re) || re.Code != CodeRefused {
		return "", false
	}
	var d PathData
	if json.Unmarshal(re.Data, &d) != nil || d.Kind != "path" {
		return "", false
	}
	return d.Path, true
}

// fromWire turns an error answer into an *Error.
func fromWire(host, method string, err error) error {
	var we *rpc.Error
	if !errors.As(err, &we) {
		return err
	}
	e := &Error{Host: host, Code: we.Code, Msg: we.Message, Data: we.Data}
	switch we.Code {
	case CodeVersion:
		e.Kind = ErrVersion
	case CodeGeneration:
		e.Kind = ErrGeneration
	case -32601: // method not found
		e.Msg = fmt.Sprintf("the cairn on %s does not serve %s (an older cairn)", host, method)
		e.Kind = ErrVersion
	}
	if we.Code == CodeRefused {
		r := &Refusal{Err: e}
		var d ConflictData
		if json.Unmarshal(we.Data, &d) == nil && d.Kind == "conflict" && d.Files != nil {
			r.Conflict = &engine.RevertConflictError{Action: d.Action, Files: d.Files}
		}
		var why RefusedData
		if json.Unmarshal(we.Data, &why) == nil && why.Kind == "refused" {
			r.Reason = why.Why
		}
		return r
	}
	return e
}

// wireError is the error answer of a host error of code with msg and the
// data (its kind added).
func wireError(code int64, kind string, msg string, data any) *rpc.Error {
	var raw json.RawMessage
	if data != nil {
		raw, _ = json.Marshal(data)
	} else {
		raw, _ = json.Marshal(map[string]string{"kind": kind})
	}
	return &rpc.Error{Code: code, Message: msg, Data: raw}
}

// HostError is the error answer the host gives for err: its code from
// the engine's sentinels, its message err's text.
func HostError(err error) *rpc.Error {
	var we *rpc.Error
	if errors.As(err, &we) {
		return we
	}
	var ce *engine.RevertConflictError
	if errors.As(err, &ce) && ce.Files != nil {
		return wireError(CodeRefused, "conflict", err.Error(), ConflictData{Kind: "conflict", Action: ce.Action, Files: ce.Files})
	}
	code, kind := int64(CodeFailed), "failed"
	switch {
	case errors.Is(err, engine.ErrBusy):
		code, kind = CodeBusy, "busy"
	case errors.Is(err, engine.ErrRefused):
		var rf engine.Refusal
		if errors.As(err, &rf) {
			return wireError(CodeRefused, "refused", err.Error(), RefusedData{Kind: "refused", Why: rf.Why()})
		}
		code, kind = CodeRefused, "refused"
	case errors.Is(err, engine.ErrBadInput):
		code, kind = CodeBadInput, "bad_input"
	case errors.Is(err, engine.ErrNotFound):
		code, kind = CodeNotFound, "not_found"
	}
	return wireError(code, kind, err.Error(), nil)
}

// Errorf is an error answer of code, with data (nil: {"kind":kind}).
func Errorf(code int64, kind string, data any, format string, a ...any) *rpc.Error {
	return wireError(code, kind, fmt.Sprintf(format, a...), data)
}
