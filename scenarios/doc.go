// Package scenarios is the named, embedded, validated catalogue of workloads that
// rocksleak drives through the KAFKA-20616 ownership models.
//
// # What a scenario describes
//
// A scenario is a Kafka Streams topology driven through time by the harness:
//
//   - The harness runs in steps. In each step every one of Tasks tasks writes
//     RecordsPerStep records (ValueBytes each, keys drawn from KeySpread distinct
//     keys) into each of its StoresPerTask stores, and stream time advances by
//     StepMs.
//   - A "kv" store is one RocksDB instance for its whole life. A "migrating" store
//     is a kv store seeded with old-format data, so it is served by the dual
//     (old and new data column family) accessor. A "window" store is segmented:
//     each segment is its own RocksDB instance, segments are created and expired
//     as stream time passes, the segment interval is SegmentInterval (Kafka's
//     max(retention/2, 60 s) unless set) and LiveSegments (retention/interval + 1)
//     segments are live at once.
//   - A lifecycle is one store or segment opened and closed. Window stores get
//     lifecycles from segment rolls; kv and migrating stores only from
//     rebalances.
//   - Every RebalanceEverySteps steps every live store (every live segment) of a
//     RebalanceTasks share of the tasks is closed and reopened.
//   - Close failures are injected at CloseFailureRate per store close, of kind
//     "transient" (that one marker write fails, the DB stays healthy) or
//     "sticky" (the DB enters a failed state and every later write fails until
//     it is reopened). With Cascade (exactly-once-v2 fencing) one failed close in
//     a task fails the close of every store of that task in that step.
//     InitFailureRate injects init failures per open.
//   - Under ExactlyOnce an unclean status found on reopen wipes the store and
//     restores it from the changelog; RestoreScratchBytes of transient native
//     memory is held during each restore and then freed.
//   - LeakSemantics says what the DB's close does with handles a failed close
//     skipped: "rocksjava" (the default; RocksJava's RocksDB.close() releases
//     every handle it handed out that is still owned, late, then closes the DB)
//     or "no-safety-net" (the what-if of a binding without that net: the DB
//     stays open with everything it holds). "safety-net" and "pin" are aliases.
//   - SyntheticLeakBytes is a calibration leak: bytes allocated, touched and
//     never freed per lifecycle, so the estimators can be checked against a
//     known answer.
//
// Each scenario names the ownership models to run by default (any of
// spec.ModelNames: "leaky", "fixed", "options-fix", "finally-fix",
// "read-options-fix", "all-fixes"); each model runs until Lifecycles
// lifecycles or Duration of wall time, whichever comes first (zero disables a
// limit; at least one must be set).
//
// # Where scenarios come from
//
// [Get] returns a catalogue entry by name, [Load] a catalogue entry or a user
// YAML file, [Parse] scenario YAML from memory. A file is decoded over
// [Default], so absent fields take their defaults; unknown fields are errors.
// Overrides from the command line go through [Scenario.Set]. Loading checks
// syntax and types only: call [Scenario.Validate] once all overrides are
// applied. Every error from this package wraps [ErrInvalid].
//
// # Units
//
// Fields ending in _ms are milliseconds of stream time (SampleIntervalMs is
// wall time), _bytes are bytes, rates are probabilities in [0,1].
package scenarios
