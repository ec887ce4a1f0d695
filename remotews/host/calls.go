package host

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path"
	"strconv"
	"sync"
	"time"

	"cairn/engine"
	"cairn/engine/wsident"
	"cairn/engine/wskey"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/remotews"
)

// The call log of a host session: one line when a call that changes
// files begins, one when it ends, in the host's state folder beside the
// workspace's identity (hosted/<key>.calls/<session>-<generation>.jsonl).
// The next session.open reads it and tells the client what became of the
// calls whose answers it may not have had: settled (the call ran to its
// end, its answer is kept) or interrupted (the host ended during it; the
// engine settled its change record when the session opened again, and the
// newest record since it began is named). Each call, and session.close,
// carries the number up to which the client had the answers of the calls
// before it (remotews.CallRef's Had: the client may send a call before
// the answers of those before it have come), and a settled call is no
// longer told once a later line says its answer arrived; an answer
// written to a connection that then broke is not known to have arrived,
// so it is told again rather than lost. The log is then emptied. Its lines are written, not synced: what a
// crash of the whole machine loses of it, the engine's own change records
// still settle.

type callLine struct {
	V      int             `json:"v"`
	Seq    int64           `json:"seq"`
	Client int64           `json:"client,omitempty"` // the client's number for the call
	Had    int64           `json:"had,omitempty"`    // the client had the answers up to it
	Method string          `json:"method,omitempty"`
	Call   string          `json:"call,omitempty"`
	Item   string          `json:"item,omitempty"`
	What   string          `json:"what,omitempty"`
	Began  *engine.Time    `json:"began,omitempty"`
	End    string          `json:"end,omitempty"` // answered | unanswered (as the host saw it) | closed
	Answer json.RawMessage `json:"answer,omitempty"`
	Error  string          `json:"error,omitempty"`
}

type callLog struct {
	fsys vfs.FS
	name string
	mu   sync.Mutex
	f    vfs.File
	seq  int64
}

func callLogName(canon, session string, gen int64) string {
	return path.Join(wsident.Folder, wskey.Key(canon)+".calls", session+"-"+strconv.FormatInt(gen, 10)+".jsonl")
}

// openCallLog reads what the log holds from the connection before, and
// starts it again empty.
func openCallLog(fsys vfs.FS, name string) (*callLog, []callLine, error) {
	var old []callLine
	b, err := vfs.ReadFile(fsys, name)
	switch {
	case err == nil:
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var l callLine
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Seq > 0 {
				old = append(old, l)
			}
		}
	case !vfs.IsNotExist(err):
		return nil, nil, err
	}
	if err := fsys.MkdirAll(path.Dir(name), 0o755); err != nil {
		return nil, nil, err
	}
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return &callLog{fsys: fsys, name: name, f: f}, old, nil
}

func (l *callLog) write(c callLine) {
	c.V = 1
	b, _ := json.Marshal(c)
	_, _ = l.f.Write(append(b, '\n'))
}

// begin logs a call beginning and returns its sequence number.
func (l *callLog) begin(method string, ref remotews.CallRef, what string, now time.Time) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	at := timefmt.Mk(now)
	l.write(callLine{Seq: l.seq, Client: ref.Seq, Had: ref.Had, Method: method, Call: ref.Call, Item: ref.Item, What: what, Began: &at})
	return l.seq
}

// end logs a call's end: answered when its answer could be sent, else
// its answer or error, for the next connect.
func (l *callLog) end(seq int64, answered bool, res any, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := callLine{Seq: seq, End: "answered"}
	if !answered {
		c.End = "unanswered"
	}
	if err != nil {
		c.Error = err.Error()
	} else {
		c.Answer, _ = json.Marshal(res)
	}
	l.write(c)
}

// closed logs the client's session.close, which says it had the answers
// up to had.
func (l *callLog) closed(had int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.write(callLine{Seq: l.seq + 1, Had: had, End: "closed"})
}

func (l *callLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// pendingOf is what the lines of the connection before say of its calls
// whose answers did not reach the client; snaps is the host session's
// snapshots and records after its open settled them.
func pendingOf(old []callLine, snaps *engine.SnapshotList) []remotews.PendingCall {
	begun := map[int64]*remotews.PendingCall{}
	client := map[int64]int64{} // the client's number of each call begun
	var order []int64
	// acked drops the calls that ended whose answers the client had.
	acked := func(had int64) {
		for seq, p := range begun {
			if p.State == remotews.PendingSettled && client[seq] > 0 && client[seq] <= had {
				delete(begun, seq)
			}
		}
	}
	for _, l := range old {
		switch {
		case l.Began != nil:
			acked(l.Had)
			begun[l.Seq] = &remotews.PendingCall{Seq: l.Client, Method: l.Method, Call: l.Call, Item: l.Item, What: l.What,
				Began: *l.Began, State: remotews.PendingInterrupted}
			client[l.Seq] = l.Client
			order = append(order, l.Seq)
		case l.End == "closed":
			acked(l.Had)
		case begun[l.Seq] != nil:
			p := begun[l.Seq]
			p.State, p.Answer, p.Error = remotews.PendingSettled, l.Answer, l.Error
		}
	}
	out := []remotews.PendingCall{}
	for _, seq := range order {
		p := begun[seq]
		if p == nil {
			continue
		}
		if p.State == remotews.PendingInterrupted && snaps != nil {
			p.Record = recordSince(snaps, p.Began)
		}
		out = append(out, *p)
	}
	return out
}

// recordSince is the newest snapshot or change record made at or after
// began, "" when none was: an interrupted call with none changed nothing.
func recordSince(l *engine.SnapshotList, began engine.Time) string {
	id, at := "", time.Time{}
	for _, s := range l.Snapshots {
		if !s.At.Before(began.Time) && !s.At.Before(at) {
			id, at = s.ID, s.At.Time
		}
	}
	for _, r := range l.Records {
		if !r.At.Before(began.Time) && !r.At.Before(at) {
			id, at = r.ID, r.At.Time
		}
	}
	return id
}
