package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rocksleak/rocksleak/spec"
)

// Kind names an operation of the schedule; its string is the "op" field of
// the JSON line.
type Kind string

// The operations (see the package documentation for what an executor does
// with each).
const (
	KindStep        Kind = "step"
	KindSeedOld     Kind = "seed_old"
	KindOpen        Kind = "open"
	KindGet         Kind = "get"
	KindPut         Kind = "put"
	KindRange       Kind = "range"
	KindCommit      Kind = "commit"
	KindArm         Kind = "arm"
	KindClose       Kind = "close"
	KindRebalance   Kind = "rebalance"
	KindSamplePoint Kind = "sample_point"
	KindEnd         Kind = "end"
)

// Kinds lists every operation kind in documentation order.
func Kinds() []Kind {
	return []Kind{KindStep, KindSeedOld, KindOpen, KindGet, KindPut, KindRange, KindCommit, KindArm, KindClose,
		KindRebalance, KindSamplePoint, KindEnd}
}

// Op is one operation of the schedule. Which fields are meaningful depends
// on Kind (the package documentation's table; Encode writes exactly those).
type Op struct {
	Kind Kind
	// Step is the step's number, from 1 (step).
	Step int64
	// StreamTime is the stream time in ms at the end of the step (step) or at
	// which the store opens (open).
	StreamTime int64
	// Task and Store are 0-based indices (seed_old, open, get, put, range,
	// commit: Task only, arm, close).
	Task, Store int
	// Key and Ts are the record read (get). Key, Ts and Ver are the record
	// (put): its key, its timestamp in ms of
	// stream time and its version, unique in the schedule (the first put is
	// 1; the old-format records of seed_old are version 0 at timestamp 0).
	Key     string
	Ts, Ver int64
	// InitFailures is how many attempts of the open (open), or of the open of
	// the window segment the put creates (put), fail during init before one
	// succeeds; InitTries or more means every attempt fails.
	InitFailures int
	// Fault is the close failure armed (arm).
	Fault spec.Fault
	// Tasks are the tasks the rebalance moves, ascending (rebalance).
	Tasks []int
}

// AppendJSON appends op's JSON line (with its newline) to b: the fields of
// its kind in a fixed order, put's init_failures only when non-zero.
func (op Op) AppendJSON(b []byte) []byte {
	b = append(b, `{"op":"`...)
	b = append(b, op.Kind...)
	b = append(b, '"')
	field := func(name string, v int64) {
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, v, 10)
	}
	switch op.Kind {
	case KindStep:
		field("step", op.Step)
		field("stream_time", op.StreamTime)
	case KindSeedOld, KindClose, KindRange:
		field("task", int64(op.Task))
		field("store", int64(op.Store))
	case KindGet:
		field("task", int64(op.Task))
		field("store", int64(op.Store))
		b = append(b, `,"key":`...)
		b = strconv.AppendQuote(b, op.Key)
		field("ts", op.Ts)
	case KindOpen:
		field("task", int64(op.Task))
		field("store", int64(op.Store))
		field("stream_time", op.StreamTime)
		field("init_failures", int64(op.InitFailures))
	case KindPut:
		field("task", int64(op.Task))
		field("store", int64(op.Store))
		b = append(b, `,"key":`...)
		b = strconv.AppendQuote(b, op.Key) // keys are printable ASCII: the same as JSON's quoting
		field("ts", op.Ts)
		field("ver", op.Ver)
		if op.InitFailures != 0 {
			field("init_failures", int64(op.InitFailures))
		}
	case KindCommit:
		field("task", int64(op.Task))
	case KindArm:
		field("task", int64(op.Task))
		field("store", int64(op.Store))
		b = append(b, `,"fault":"`...)
		b = append(b, op.Fault...)
		b = append(b, '"')
	case KindRebalance:
		b = append(b, `,"tasks":[`...)
		for i, t := range op.Tasks {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(t), 10)
		}
		b = append(b, ']')
	}
	return append(b, '}', '\n')
}

// wireOp is an Op as a JSON line holds it; a nil field was absent.
type wireOp struct {
	Op           *string `json:"op"`
	Step         *int64  `json:"step"`
	StreamTime   *int64  `json:"stream_time"`
	Task         *int    `json:"task"`
	Store        *int    `json:"store"`
	Key          *string `json:"key"`
	Ts           *int64  `json:"ts"`
	Ver          *int64  `json:"ver"`
	InitFailures *int    `json:"init_failures"`
	Fault        *string `json:"fault"`
	Tasks        *[]int  `json:"tasks"`
}

// ErrBadOp wraps every error of Decode.
var ErrBadOp = errors.New("bad op")

// Decode parses one JSON line (without or with its newline) into an Op. A
// field the kind needs and the line lacks, or a value out of range, is an
// error naming the field; fields the kind does not use are ignored, so a
// later protocol may add fields.
func Decode(line []byte) (Op, error) {
	var w wireOp
	if err := json.Unmarshal(line, &w); err != nil {
		return Op{}, fmt.Errorf("%w: %w", ErrBadOp, err)
	}
	if w.Op == nil {
		return Op{}, fmt.Errorf("%w: missing field \"op\"", ErrBadOp)
	}
	op := Op{Kind: Kind(*w.Op)}
	var d opDecoder
	if err := d.fields(&w, &op); err != nil {
		return Op{}, err
	}
	if len(d.missing) > 0 {
		return Op{}, fmt.Errorf("%w: %s: bad or missing field(s) %q", ErrBadOp, op.Kind, d.missing)
	}
	return op, nil
}

// opDecoder copies a wire op's fields into an Op by kind, collecting the
// fields that are missing or out of range (Decode's error names them all).
type opDecoder struct{ missing []string }

func (d *opDecoder) i64(name string, p *int64, dst *int64, min int64) {
	switch {
	case p == nil:
		d.missing = append(d.missing, name)
	case *p < min:
		d.missing = append(d.missing, fmt.Sprintf("%s (%d < %d)", name, *p, min))
	default:
		*dst = *p
	}
}

func (d *opDecoder) idx(name string, p *int, dst *int) {
	switch {
	case p == nil:
		d.missing = append(d.missing, name)
	case *p < 0:
		d.missing = append(d.missing, fmt.Sprintf("%s (%d < 0)", name, *p))
	default:
		*dst = *p
	}
}

// slot reads the task and store an op addresses.
func (d *opDecoder) slot(w *wireOp, op *Op) {
	d.idx("task", w.Task, &op.Task)
	d.idx("store", w.Store, &op.Store)
}

// record reads the key and timestamp of a get or a put.
func (d *opDecoder) record(w *wireOp, op *Op) {
	if w.Key == nil {
		d.missing = append(d.missing, "key")
	} else {
		op.Key = *w.Key
	}
	d.i64("ts", w.Ts, &op.Ts, 0)
}

// fields copies w's fields for op's kind; its error is an op that cannot be
// read at all (an unknown kind, a bad fault, a negative task).
func (d *opDecoder) fields(w *wireOp, op *Op) error {
	switch op.Kind {
	case KindStep:
		d.i64("step", w.Step, &op.Step, 1)
		d.i64("stream_time", w.StreamTime, &op.StreamTime, 0)
	case KindSeedOld, KindClose, KindRange:
		d.slot(w, op)
	case KindGet:
		d.slot(w, op)
		d.record(w, op)
	case KindOpen:
		d.slot(w, op)
		d.i64("stream_time", w.StreamTime, &op.StreamTime, 0)
		d.idx("init_failures", w.InitFailures, &op.InitFailures)
	case KindPut:
		d.slot(w, op)
		d.record(w, op)
		d.i64("ver", w.Ver, &op.Ver, 1)
		if w.InitFailures != nil {
			d.idx("init_failures", w.InitFailures, &op.InitFailures)
		}
	case KindCommit:
		d.idx("task", w.Task, &op.Task)
	case KindArm:
		d.slot(w, op)
		if w.Fault == nil {
			d.missing = append(d.missing, "fault")
		} else if f, err := spec.ParseFault(*w.Fault); err != nil {
			return fmt.Errorf("%w: arm: field \"fault\": %w", ErrBadOp, err)
		} else {
			op.Fault = f
		}
	case KindRebalance:
		if w.Tasks == nil {
			d.missing = append(d.missing, "tasks")
			return nil
		}
		for _, t := range *w.Tasks {
			if t < 0 {
				return fmt.Errorf("%w: rebalance: field \"tasks\": task %d < 0", ErrBadOp, t)
			}
		}
		op.Tasks = *w.Tasks
	case KindSamplePoint, KindEnd:
	default:
		return fmt.Errorf("%w: field \"op\": unknown operation %q (known: %v)", ErrBadOp, op.Kind, Kinds())
	}
	return nil
}

// Reader reads a stream of ops, one JSON line each (what follows the job on
// a child's standard input).
type Reader struct {
	sc   *bufio.Scanner
	line int
}

// NewReader reads ops from r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	return &Reader{sc: sc}
}

// Next returns the next op; io.EOF at the end of the stream (an executor
// then ends as at its stop condition). Blank lines are skipped. An error
// names the line number within the op stream.
func (r *Reader) Next() (Op, error) {
	for r.sc.Scan() {
		r.line++
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		op, err := Decode(b)
		if err != nil {
			return Op{}, fmt.Errorf("op line %d: %w", r.line, err)
		}
		return op, nil
	}
	if err := r.sc.Err(); err != nil {
		return Op{}, err
	}
	return Op{}, io.EOF
}
