package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
)

// logEntry is what one push added, written once at log/<machine>/<seq>.json:
//
//	{"v":1,"machine":M,"seq":N,"at":T,"sessions":[{"id":ID,"card":{...},
//	 "segments":[{"file","gen","off","size"}],"outputs":[NAME,...]}],
//	 "usage":[{"off","size"}],"forgets":[ID,...]}
type logEntry struct {
	V        int          `json:"v"`
	Machine  string       `json:"machine"`
	Seq      int64        `json:"seq"`
	At       string       `json:"at"`
	Sessions []logSession `json:"sessions,omitempty"`
	Usage    []Segment    `json:"usage,omitempty"`
	Forgets  []string     `json:"forgets,omitempty"`
}

type logSession struct {
	ID       string    `json:"id"`
	Card     *Card     `json:"card,omitempty"`
	Segments []Segment `json:"segments,omitempty"`
	Outputs  []string  `json:"outputs,omitempty"`
}

// machineHead is machines/<machine>.json: the machine's last log entry.
type machineHead struct {
	V       int    `json:"v"`
	Machine string `json:"machine"`
	Seq     int64  `json:"seq"`
	At      string `json:"at"`
}

func putBytes(ctx context.Context, b Bucket, key string, data []byte, c Cond) error {
	return b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), c)
}

// writeLog writes this push's log entry under the next free number, then
// the machine's head naming it.
func (s *Syncer) writeLog(ctx context.Context, log *logEntry) error {
	log.V, log.Machine, log.At = 1, s.Machine, s.now().Format("2006-01-02T15:04:05.000Z")
	for {
		s.st.Seq++
		log.Seq = s.st.Seq
		b, err := json.Marshal(log)
		if err != nil {
			return err
		}
		err = putBytes(ctx, s.Bucket, logKey(s.Machine, log.Seq), b, Cond{IfAbsent: true})
		if errors.Is(err, ErrExists) {
			// A push cut short after its log entry: that number is taken,
			// and what it names is on the remote.
			s.note("log entry %d of %s was there already (an earlier push cut short); this one is %d", log.Seq, s.Machine, log.Seq+1)
			continue
		}
		if err != nil {
			s.st.Seq--
			return err
		}
		break
	}
	head, _ := json.Marshal(machineHead{V: 1, Machine: s.Machine, Seq: log.Seq, At: log.At})
	return putBytes(ctx, s.Bucket, machineKey(s.Machine), head, Cond{})
}
