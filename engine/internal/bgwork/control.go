package bgwork

import (
	"encoding/json"
	"fmt"
)

// Actions of task_control. Part of the tool's contract.
const (
	ActionList       = "list"
	ActionStatus     = "status"
	ActionCancel     = "cancel"
	ActionBackground = "background"
	// ActionPause pauses a running workflow (Runner.Pause); its runtime
	// resumes it under the same id.
	ActionPause = "pause"
)

// Request is one task_control call.
type Request struct {
	Action string `json:"action"`
	TaskID string `json:"task_id,omitempty"`
	Cursor string `json:"cursor,omitempty"` // list: the next of the page before
	Limit  int    `json:"limit,omitempty"`  // list: 0 means PageSize
}

// Answer is what a task_control call answers: for list a Page, for status
// a Status, for cancel and pause the Work as it stands (cancelling,
// paused), for background the Receipt its waiting caller got. It marshals as that one value.
type Answer struct {
	Action  string
	Page    *Page
	Status  *Status
	Work    *Work
	Receipt *Receipt
}

// MarshalJSON writes the answer's one value.
func (a Answer) MarshalJSON() ([]byte, error) {
	switch {
	case a.Page != nil:
		return json.Marshal(a.Page)
	case a.Status != nil:
		return json.Marshal(a.Status)
	case a.Work != nil:
		return json.Marshal(a.Work)
	case a.Receipt != nil:
		return json.Marshal(a.Receipt)
	}
	return []byte("{}"), nil
}

// CheckRequest refuses a malformed call: an unknown action, an action
// other than list without a task_id, a list with one, a cursor or limit
// outside list.
func CheckRequest(q Request) error {
	switch q.Action {
	case ActionList:
		if q.TaskID != "" {
			return fmt.Errorf("%w: list takes no task_id", ErrInvalid)
		}
		return nil
	case ActionStatus, ActionCancel, ActionBackground, ActionPause:
	case "":
		return fmt.Errorf("%w: task_control needs an action: list, status, cancel, background or pause", ErrInvalid)
	default:
		return fmt.Errorf("%w: task_control action %q: one of list, status, cancel, background, pause", ErrInvalid, q.Action)
	}
	switch {
	case q.TaskID == "":
		return fmt.Errorf("%w: %s needs a task_id", ErrInvalid, q.Action)
	case !validID(q.TaskID):
		return fmt.Errorf("%w: %q is not a task id", ErrInvalid, q.TaskID)
	case q.Cursor != "" || q.Limit != 0:
		return fmt.Errorf("%w: a cursor and a limit are for list only", ErrInvalid)
	}
	return nil
}

// Query answers the calls that only read (list and status) from s:
// what a process that does not own the session can answer. cancel,
// background and pause are refused here.
func (s *State) Query(q Request) (Answer, error) {
	if err := CheckRequest(q); err != nil {
		return Answer{}, err
	}
	switch q.Action {
	case ActionList:
		p, err := s.List(q.Cursor, q.Limit)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Action: q.Action, Page: &p}, nil
	case ActionStatus:
		st, err := s.Status(q.TaskID)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Action: q.Action, Status: &st}, nil
	}
	return Answer{}, refused("%s needs the process that owns the session", q.Action)
}

// Control answers a task_control call as the session's owner. promote
// says whether the execution policy allows the background action (task
// auto); it is asked only for that action.
func (r *Runner) Control(q Request, promote func() error) (Answer, error) {
	if err := CheckRequest(q); err != nil {
		return Answer{}, err
	}
	switch q.Action {
	case ActionCancel:
		w, err := r.Cancel(q.TaskID)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Action: q.Action, Work: &w}, nil
	case ActionPause:
		w, err := r.Pause(q.TaskID)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Action: q.Action, Work: &w}, nil
	case ActionBackground:
		if promote != nil {
			if err := promote(); err != nil {
				return Answer{}, err
			}
		}
		rec, err := r.Promote(q.TaskID)
		if err != nil {
			return Answer{}, err
		}
		return Answer{Action: q.Action, Receipt: &rec}, nil
	}
	return r.l.Query(q)
}
