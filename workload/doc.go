// Package workload is the scenario's workload as one schedule of store
// operations, produced once, lazily, from (scenario, seed), and the child
// protocol's op stream that carries it to an executor. Both executors consume
// the same schedule: the Go engine's topology (package harness, on grocksdb)
// and the JVM child (engine/jvm/child: Kafka Streams' own store classes from the
// released jars). The schedule carries every decision drawn at random (record
// keys, the tasks a rebalance moves, close faults, init failures); an
// executor only reacts to what its stores do (restores, wipes, task errors).
//
// It is pure Go (no cgo) and imports only scenarios and spec.
//
// # The child protocol (version 1)
//
// A child's standard input holds the job, one JSON object on the first line
// (harness.Job; its "ops" field is OpsVersion when an op stream follows),
// then the op stream: one JSON object per line, written by the parent as the
// child reads (pipe back-pressure: the parent never holds the schedule and
// stops writing when the child exits or closes its input). The child writes
// its events (harness.Event: info, sample, summary) as JSON lines on file
// descriptor 3, as before.
//
// The schedule never ends: the executor stops consuming at the scenario's
// stop condition, which it checks at every step op (before the step), as the
// Go engine always has: lifecycles ≥ the scenario's lifecycles, or the elapsed
// wall time ≥ its duration; or when the parent sends SIGUSR1 (the verdict is
// settled: stop as at the stop condition) or SIGTERM (interrupted). End of
// input, or an end op, is a stop condition too. At its stop the executor
// takes its end sample, closes every store as the model closes it (with no
// fault armed) and writes its summary.
//
// # Operations
//
// Times are stream-time milliseconds; task and store are 0-based indices.
// Every op has "op"; the other fields are those of its kind, always present
// except put's init_failures (present only when non-zero). A decoder ignores
// fields it does not know, so a later version may add fields; one that
// changes a field's meaning changes OpsVersion.
//
//	op            fields                                   meaning
//	step          step, stream_time                        a step begins (step counts from 1); stream_time is the step's end.
//	                                                       The executor checks its stop condition here.
//	seed_old      task, store                              write every key (key_spread keys: Key(0..key_spread-1)) once in the
//	                                                       pre-upgrade format, timestamp 0, version 0, into the store's path, so that
//	                                                       the migrating store opens with old data (the dual accessor); setup, not
//	                                                       measured, not counted; the records go to the store's changelog.
//	open          task, store, stream_time, init_failures  open (init) the store; a window store opens at stream_time. The first
//	                                                       init_failures tries fail during init with a real RocksDB error and are
//	                                                       retried, InitTries tries in all (≥ InitTries: the open fails: a task
//	                                                       error, after which the task restores the store into a fresh directory).
//	                                                       An unclean status under exactly-once is a TaskCorruptedException: the
//	                                                       executor wipes the whole task and restores every store of it from its
//	                                                       changelog.
//	get           task, store, key, ts                     read_back only, before the put of the same key and ts: a point read (a
//	                                                       key-value store's get, a window store's fetch(key, ts)); its result is
//	                                                       not checked (the record may not exist yet). A store not open is skipped.
//	put           task, store, key, ts, ver                put one record: RecordValue(seed, value_bytes, task, store, key, ts, ver).
//	              [init_failures]                          A window store's put advances its stream time to ts, creates the record's
//	                                                       segment (init_failures, when present, is for that segment's open, as for
//	                                                       open) and then closes and deletes the segments no longer live. A put that
//	                                                       succeeds is appended to the store's changelog (package changelog's
//	                                                       files: changelog.Path(<the job's changelog_dir>, task, store)). Puts to a
//	                                                       store that could not be opened are skipped.
//	range         task, store                              read_back only, before each commit, once per store of the task: read every
//	                                                       record the store holds (a key-value store's all(), a window store's
//	                                                       fetchAll over its live segments), closing the iterator. A store not open
//	                                                       is skipped.
//	commit        task                                     commit every open store of the task with its changelog offsets (the
//	                                                       executor's count of records it appended, spread over
//	                                                       changelog_partitions), without a flush (Kafka 4.3); it disarms the
//	                                                       task's stores (see arm).
//	arm           task, store, fault                       every close the store's open instance does from here until the task's next
//	                                                       commit (a window segment's expiry, or the store's close) fails its
//	                                                       close-time status write with a real RocksDB error of kind fault:
//	                                                       "transient" (that write, issued with sync on and the WAL off, is refused:
//	                                                       "Invalid argument: Sync writes has to enable WAL.") or "sticky" (the DB is
//	                                                       put in a failed state first, so the write and every later one fail until
//	                                                       it is reopened). The close goes on as the model closes. The arm goes with
//	                                                       the instance: a store closed, reopened or restored is not armed.
//	close         task, store                              close the store (every open segment) as the model closes it.
//	rebalance     tasks                                    count one rebalance; the closes and opens of the moved tasks follow as ops.
//	sample_point                                           the executor's recorder may take a sample here: a lifecycle sample when
//	                                                       sample_every_lifecycles lifecycles have passed since the last one, else a
//	                                                       timer sample when sample_interval_ms has passed.
//	end                                                    stop (not produced by the Generator; a parent may send it).
//
// The Generator's schedule is: start (per task: per store seed_old when the
// store is migrating, then open; then sample_point), then steps forever. A
// step is: step; per task: the arms of the task's stores when stream time
// crossing into the step expires a window segment, its records_per_step puts
// per store (at timestamps prev + i·step_ms/records_per_step, i = 1..n),
// commit, sample_point; then, every rebalance_every_steps steps, rebalance and
// per moved task: its arms, close of each store, open of each store,
// sample_point.
//
// # What an executor counts
//
// A lifecycle is one store instance (a window segment, or a kv store) opened
// and closed, restores included; a failed close is a close whose status write
// failed; a restore is a store restored from its changelog (after a wipe, a
// failed open, or a reopen that found the store behind its changelog). Both
// executors count them the same way, and these counts drive the stop
// condition and the samples' cadence.
//
// # Draws
//
// Record keys and the moved tasks are drawn from PCG(seed, 0x5eed), in
// schedule order: the same keys engine/goengine's topology drew while every store was
// open. Close faults (one Bernoulli(close_failure_rate) per store per arming
// point: a step whose stream time expires a segment, a rebalance closing the
// task) and init failures (per open, and per put that creates a window
// segment) are drawn from PCG(seed, seed^0x9e3779b97f4a7c15). The Go engine
// used to draw a fault per segment close, in the order its stores closed
// them, and for the closes of restores too: in the schedule the decision is
// per store and arming point (a store's segments closing together fail
// together), and closes an executor does in reaction (a restore's segment
// expiries, a wiped task's other stores, the final close) never fail.
package workload

// OpsVersion is the op-stream protocol version this package writes and
// reads; a job's "ops" field names it when an op stream follows the job.
const OpsVersion = 1
