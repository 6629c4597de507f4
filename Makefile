# rocksleak: set-up is `make run` and `make test`; both install what is missing.
GO      ?= go
BIN     := bin/rocksleak
# The pure-Go packages (no cgo, no RocksDB: `go list -deps` names neither grocksdb nor lifecycle nor harness).
PURE    := ./stats/... ./spec/... ./schema/... ./analysis/... ./scenarios/... ./results/... ./gate/... ./plan/... ./rehearsal/... ./sweep/... ./internal/... ./workload/... ./engine ./engine/jvm/kafkaversions/... ./userapp/...
# Every other package: the ones with real runs (evaluated only when used).
REAL     = $(filter-out $(shell $(GO) list $(PURE)),$(shell $(GO) list ./...))
# The packages whose code runs goroutines or guards shared state (go statements, sync, atomic outside tests: the
# samplers, the memory guard, the fleet's children, the native-object ledger, the profile symbolizer), run again
# under the race detector with -short. The pure packages start no goroutine and their tests none either, so the
# race detector cannot see a race there; cmd/rocksleak's goroutines (seeds in parallel, progress) drive child
# processes, which a -race binary would re-exec slowly, and its -short tests start few. RACE_MEM are those whose
# -short tests read memory (measure's and engine/goengine's retention tests assert RSS after a trim, lifecycle's the native
# heap per lifecycle): they run one at a time (-p 1). RACE_SHARED's (fleet: assignment, a child, the reference
# replay, a rollback's checks; heapprof) read none. Both run in make test's lane beside the real runs, at the lowest
# CPU priority: RACE_MEM's -short tests passed so, beside two default runs at once, twice on 2026-12-03.
RACE_MEM    := ./measure ./harness ./engine/goengine ./lifecycle
RACE_SHARED := ./fleet ./heapprof
# The packages with Go benchmarks: make test runs each benchmark once (-benchtime=1x, -short: BenchmarkProfileCost's
# children run 30 lifecycles instead of 300), so that none breaks unseen; make bench measures.
BENCH_PKGS = $(sort $(dir $(shell grep -rl --include='*_test.go' '^func Benchmark' .)))
ARGS    ?=
comma   := ,
# Fuzz targets as package:Target; run briefly by `make test`, longer by `make fuzz`.
FUZZ    := ./scenarios:FuzzLoadYAML ./results:FuzzParseResult ./schema:FuzzParseSamplesCSV \
           ./gate:FuzzParsePolicy ./plan:FuzzParseTopology
FUZZTIME ?= 2m
# How long the fuzzer may shrink a new input (go test -fuzzminimizetime; Go's default is 60s).
FUZZMINIMIZETIME ?= 60s
# make test's brief fuzzing: a count of executions, not a duration. A -fuzztime duration races Go's fuzzing
# coordinator at its deadline in Go before 1.27 (golang/go#75804): under load a target
# fails with a bare "context deadline exceeded" and no failing input. And with a 5 s budget FuzzLoadYAML spent all of
# it minimizing its first new input (47 executions, 0 new inputs kept); 20000 executions with minimizing bounded to
# 500 each run every target in 3-6 s here and keep what they find (59 new inputs for FuzzLoadYAML).
TESTFUZZ := FUZZTIME=20000x FUZZMINIMIZETIME=500x
# The JVM engine (kafka-<version> models, engine/jvm: jvm.Engine): the Java child (engine/jvm/child, a Maven module) as
# build/jvm/rocksleak-child.jar and, per Kafka version, the classpath Maven resolves for it
# (build/jvm/classpath-<version>.txt: kafka-streams and kafka-streams-test-utils of that version, with the
# rocksdbjni its pom names). Maven is tried offline (-o) first and goes online only when something is not in
# ~/.m2 yet: it resolves once, then works offline.
MVN      ?= mvn
KAFKA_VERSIONS ?= 4.2.2 4.3.0 4.3.1
JVM_DIR  := build/jvm
JVM_POM  := engine/jvm/child/pom.xml
# The tests find the JVM build here; once engine/jvm/child exists, its absence fails them instead of skipping.
JVM_TEST_ENV := ROCKSLEAK_JVM_DIR=$(abspath $(JVM_DIR)) $(if $(wildcard $(JVM_POM)),ROCKSLEAK_REQUIRE_JVM=1)
COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS := -X main.gitCommit=$(COMMIT)

.PHONY: all deps build jvm run test bench reliability fuzz clean kafka-versions kafka-tests

all: build

deps:
	@./scripts/install-deps.sh

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/rocksleak

## jvm: build the JVM engine's child and each KAFKA_VERSIONS' classpath into build/jvm (engine/jvm/child/build.sh: Maven
## offline first, online only for what ~/.m2 lacks; JVM_TESTS=-t runs its JUnit tests too), and the example
## applications (examples/java/build.sh: build/jvm/rocksleak-examples.jar, docs/your-application.md).
jvm: deps
ifeq ($(wildcard $(JVM_POM)),)
	@echo "make jvm: $(JVM_POM) is not there yet, so the kafka-<version> models cannot run"
else
	MVN=$(MVN) engine/jvm/child/build.sh $(JVM_TESTS) $(JVM_DIR) $(KAFKA_VERSIONS)
	MVN=$(MVN) examples/java/build.sh $(JVM_DIR)
endif

## run: the first answer, from the real thing, then from the Go model. First Kafka's own 4.3.0 and 4.3.1 jars (the JVM
## engine, the rocksdbjni their pom names) on the default scenario at RUN_JVM_LIFECYCLES lifecycles and 2 records per
## step (docs/jvm-engine.md: at 50 the per-model intervals are +-65 KiB): each one's verdict and the fix's size, the
## paired controlled verdict kafka-4.3.0 - kafka-4.3.1, which is what carries the answer; then the Go engine's models
## on Debian's RocksDB 7.8.3 (leaky vs fixed, the default run). About 1 minute of runs after the build. With ARGS, only
## `rocksleak run $(ARGS)` runs (make run ARGS='--scenario eos-v2-cascade').
## The Go build (CPU) and the JVM engine's build (on a fresh machine, mostly Maven's first resolution: network) run side
## by side (-j2), each one's output printed whole.
RUN_JVM_LIFECYCLES ?= 1200
run: deps
	@$(MAKE) --no-print-directory -j2 --output-sync=target build jvm KAFKA_VERSIONS="4.3.0 4.3.1"
ifeq ($(strip $(ARGS)),)
	./$(BIN) run --models kafka-4.3.0,kafka-4.3.1 --lifecycles $(RUN_JVM_LIFECYCLES) --set records_per_step=2
	@echo
	./$(BIN) run
else
	./$(BIN) run $(ARGS)
endif

## test: every test, plus the packages with goroutines under -race -short (their long real runs already ran in the
## main pass) and every fuzz target briefly, in two lanes side by side (make -j2; each lane's output is printed whole
## when it ends, and a failure fails make test once the other lane ends), after the JVM child's build:
## - test-alone: the packages with real runs (cgo: RocksDB, children, samplers), one package at a time (-p 1); inside
##   cmd/rocksleak the real runs go two at a time (each keeps about one core busy).
## - test-beside, at the lowest CPU priority (nice -n 19), so that it takes only the CPU test-alone leaves idle, two at
##   a time: the Java child's JUnit tests, go vet, the pure packages' tests, the race detector on the packages with
##   goroutines (-short), the brief fuzzing, and every Go benchmark once (-benchtime=1x -short).
## docs/developing.md ("Tests and their timings") says how long each part takes and why.
test: deps
	@$(MAKE) --no-print-directory jvm
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-alone test-beside

# make test's parts (`make test` runs them).
.PHONY: test-alone test-beside test-jvm test-vet test-pure test-race-mem test-race-shared test-fuzz test-bench
test-alone:
	$(JVM_TEST_ENV) $(GO) test -p 1 -count=1 -timeout 25m $(REAL)
test-beside:
	@MAKEFLAGS= nice -n 19 $(MAKE) --no-print-directory -j2 --output-sync=target test-race-mem test-jvm test-vet test-pure test-race-shared test-fuzz test-bench
# The Java child with its own JUnit tests (make jvm with build.sh -t), built into a directory of its own
# ($(JVM_DIR)-junit), so that test-alone's JVM runs keep reading the build make test made first in $(JVM_DIR).
test-jvm:
	@$(MAKE) --no-print-directory jvm JVM_TESTS=-t JVM_DIR=$(JVM_DIR)-junit
test-vet:
	$(GO) vet ./...
test-pure:
	$(GO) test -count=1 -timeout 15m $(PURE)
test-race-mem:
	$(GO) test -p 1 -count=1 -race -short -timeout 10m $(RACE_MEM)
test-race-shared:
	$(GO) test -count=1 -race -short -timeout 10m $(RACE_SHARED)
test-fuzz:
	@$(MAKE) --no-print-directory fuzz $(TESTFUZZ)
# Every Go benchmark once: it checks that each still runs; its figures mean nothing here (make bench measures).
test-bench:
	$(GO) test -short -count=1 -run '^$$' -bench . -benchtime=1x -timeout 10m $(BENCH_PKGS)

## test-short: the edit loop, under 2 minutes (91 s on a shared 2-core machine; no RocksDB, nothing installed):
## the pure packages vetted, then their tests with -short, which skips their long Monte Carlo runs (the
## statistics' coverage and calibration checks; `make test` runs them). The packages with real runs are left to
## `make test` and to `go test -run` on the package you touch: their real runs are what makes them long
## (docs/developing.md names them).
test-short:
	$(GO) vet $(PURE)
	$(GO) test -short -count=1 $(PURE)

## fuzz: every fuzz target for FUZZTIME (default 2m; a count such as 20000x also works) each.
fuzz:
	@for t in $(FUZZ); do pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $$pkg || exit 1; done

## bench: lifecycle throughput of a bare grocksdb loop vs the harness (fixed model, sampling every
## lifecycle), side by side in the same run, and the cost of one sample (about 3 minutes).
bench: deps
	GO=$(GO) ./scripts/bench.sh bench.txt

## reliability: kafka-20616 at 20 seeds, the same with --until-verdict, calibration at 10 seeds, and
## calibration with a 256 B/lifecycle synthetic leak at 10 seeds (the controlled verdicts' detection table,
## with the fixed model run twice per seed for the A/A pair) (two seeds at a time; about 35 minutes on a quiet 2-core machine).
reliability: deps build
	./$(BIN) reliability --scenario kafka-20616 --seeds 20 --parallel 2 $(ARGS)
	./$(BIN) reliability --scenario kafka-20616 --seeds 20 --parallel 2 --until-verdict $(ARGS)
	./$(BIN) reliability --scenario calibration --seeds 10 --parallel 2
	./$(BIN) reliability --scenario calibration --seeds 10 --parallel 2 --set synthetic_leak_bytes=256 --replicate fixed

## gate-aa: the CI gate's false-alarm table on real runs (scripts/gateaa): GATE_AA_PAIRS pairs of fixed runs of the
## default scenario at different seeds, each gated with the default policy (any FAIL is a false alarm), and leaky at the
## candidate's seed against the same baseline (must FAIL); LOAD=1 runs them beside stress-ng --cpu 1. Three runs a pair,
## one at a time: about 16 minutes for 20 pairs on a 2-core machine, quiet or beside the load (docs/findings.md).
## GATE_AA_ARGS go to every run; GATE_AA_FLAGS to scripts/gateaa (-out DIR reuses the runs already in DIR).
GATE_AA_PAIRS ?= 20
GATE_AA_ARGS  ?=
GATE_AA_FLAGS ?=
.PHONY: gate-aa
gate-aa: build
	@if [ -n "$(LOAD)" ]; then ./scripts/install-deps.sh --load; fi
	$(GO) run ./scripts/gateaa -pairs $(GATE_AA_PAIRS) $(if $(LOAD),-load) $(GATE_AA_FLAGS) -- $(GATE_AA_ARGS)

## soak: 4.3.1's model for SOAK_DURATION (default 1h: RocksDB's 600 s periodic-task timer comes due six times and
## the allocator settles), then its curves against time (scripts/soaktable: native heap and RSS per window of the
## run, their rise per minute, the verdict and any fitted level) and the plan from it. SOAK_MODELS=fixed,kafka-4.3.1
## adds the jars (make jvm first). A measurement for a quiet machine: one core for the hour.
SOAK_DURATION ?= 1h
SOAK_MODELS   ?= fixed
SOAK_STAMP    := $(shell date -u +%Y%m%dT%H%M%SZ)
SOAK_OUT      ?= runs/soak-$(SOAK_STAMP)
.PHONY: soak
soak: build
	./$(BIN) run --models $(SOAK_MODELS) --duration $(SOAK_DURATION) --out $(SOAK_OUT) $(ARGS)
	$(GO) run ./scripts/soaktable $(SOAK_OUT)
	./$(BIN) plan --result $(SOAK_OUT) --model $(firstword $(subst $(comma), ,$(SOAK_MODELS)))

## failedclose: what one failed close costs (rocksleak failedclose): FC_MODELS run twice on the default scenario at
## one seed, closes failing at FC_RATE and not at all, FC_LIFECYCLES each, then the table. The jars need make jvm
## (or ROCKSLEAK_JVM_DIR). FC_MODELS=leaky,fixed for the Go engine. About 5 minutes for the jars on a quiet 2-core
## machine. FC_SET bounds the changelog a restore replays (windowstore.changelog.additional.retention.ms 10 minutes
## of stream time, where Kafka's default is a day, which the run's stream time never reaches): with the day, every
## restore replays all the run wrote, so the cost per failed close grows with the run (docs/findings.md, 2026-12-06
## evening). FC_SET= gives the scenario's own day.
FC_MODELS     ?= kafka-4.3.1,kafka-4.3.0
FC_RATE       ?= 0.5
FC_LIFECYCLES ?= 8000
FC_SET        ?= --set additional_retention_ms=600000
FC_STAMP      := $(shell date -u +%Y%m%dT%H%M%SZ)
FC_OUT        ?= runs/failedclose-$(FC_STAMP)
.PHONY: failedclose
failedclose: build
	./$(BIN) run --models $(FC_MODELS) --lifecycles $(FC_LIFECYCLES) --set close_failure_rate=$(FC_RATE) $(FC_SET) --out $(FC_OUT)/faulty $(ARGS)
	./$(BIN) run --models $(FC_MODELS) --lifecycles $(FC_LIFECYCLES) --set close_failure_rate=0 $(FC_SET) --out $(FC_OUT)/control $(ARGS)
	./$(BIN) failedclose $(FC_OUT)/faulty $(FC_OUT)/control

clean:
	rm -rf bin build

## stats-check: the seeded simulation suite of stats (coverage and false calls per case, the coverage
## frontier, early verdicts, the early stop against the full run (half the runs per case: 200 by default), controlled
## verdicts) and the across-seed spread on runs/reliability/* if present.
## STATSCHECK_FLAGS=-quick for 100 instead of 400 runs per case.
.PHONY: stats-check
stats-check:
	$(GO) run ./scripts/statscheck -real 'runs/reliability/*' $(STATSCHECK_FLAGS)

## ci-example: run the GitHub Actions example's shell steps in order on this machine (Debian 12, as root), from a
## clean copy of the repository, with a tiny sweep (cmd/rocksleak TestGitHubActionsWorkflowSteps; about 35 s with a
## warm build cache, 100 s from a fresh clone; runs apt-get update).
.PHONY: ci-example
ci-example:
	ROCKSLEAK_WORKFLOW_TEST=1 $(GO) test -count=1 -run TestGitHubActionsWorkflowSteps -v ./cmd/rocksleak

## kafka-versions: resolve every Kafka version of engine/jvm/kafkaversions/versions.tsv with Maven, check each row against its
## pom, Maven's resolution and its jar's bytecode (javap), and print the table as read from the jars (about 1 minute
## once resolved; the first run downloads the jars).
kafka-versions:
	./engine/jvm/kafkatests/kafka-versions.sh

## kafka-tests: Kafka's own close-leak tests (4.3.1's test jar), a port of their assertions that links against both
## jars, the restore-path WriteBatch leak and the offsets CF's cache capacity, run against the 4.3.0 and 4.3.1 main
## jars; prints test method x jar -> outcome with every failure's message (about 3 minutes).
kafka-tests:
	./engine/jvm/kafkatests/kafka-tests.sh

## versions: which Kafka versions leak, and how much: builds the JVM child and the classpath of every version of
## engine/jvm/kafkaversions/versions.tsv, then runs `rocksleak versions` over them (VERSIONS_FLAGS, e.g.
## VERSIONS_FLAGS="--versions 4.3.0,4.3.1 --lifecycles 1200"; at the default 800 lifecycles about 25 s of run per
## version after 4.5 to 6.5 minutes of build, 10 to 11.5 minutes in all at load 13 to 18, 3 minutes at load 4 to 9,
## 2.2 to 3.5 minutes at load 2 to 5 (the build 32 to 62 s of it); each row's verdict with its evidence: docs/versions.md).
# Every row of the table (4.0.0 on): the versions rocksleak versions runs.
TABLE_VERSIONS := $(shell awk -F'\t' '!/^\#/ && $$1 != "kafka_version" {print $$1}' engine/jvm/kafkaversions/versions.tsv)
.PHONY: versions
versions: KAFKA_VERSIONS := $(TABLE_VERSIONS)
versions: jvm build
	$(BIN) versions $(VERSIONS_FLAGS)

## crosscheck: the Go engine (RocksDB 7.8.3) beside the JVM engine (Kafka's 4.3.0 and 4.3.1 jars on rocksdbjni
## 10.1.3): one run of leaky, kafka-4.3.0, fixed and kafka-4.3.1, its table written into docs/crosscheck.md.
.PHONY: crosscheck
crosscheck: KAFKA_VERSIONS := 4.3.0 4.3.1
crosscheck: jvm build
	$(BIN) crosscheck --doc docs/crosscheck.md $(CROSSCHECK_FLAGS)

## bench-jvm: the JVM child's cost: kafka-4.3.1 instrumented vs bare (the Java child's --bare: same store operations,
## no sampling, no ledger), alternately, BENCH_JVM_ROUNDS rounds (default 5) of 600 lifecycles; prints lifecycles/s,
## each round's ratio, their median and spread (goal: instrumented lifecycles/s >= 0.90 x bare) and one sample's cost
## (about 1.5 minutes a round).
## bench-profile-jvm: what rocksleak run --profile costs the JVM engine: kafka-4.3.0 without and with --profile,
## alternately, 3 rounds of 400 lifecycles; prints lifecycles/s and the ratio profiled/plain (goal >= 0.75).
.PHONY: bench-profile-jvm
bench-profile-jvm: KAFKA_VERSIONS := 4.3.0
bench-profile-jvm: jvm build
	$(GO) run ./scripts/benchprofile -bin $(BIN) $(BENCH_PROFILE_FLAGS)

.PHONY: bench-jvm
bench-jvm: KAFKA_VERSIONS := 4.3.1
BENCH_JVM_ROUNDS ?= 5
bench-jvm: jvm build
	$(GO) run ./scripts/benchjvm -bin $(BIN) -rounds $(BENCH_JVM_ROUNDS) $(BENCH_JVM_FLAGS)

## bench-app: the same for an application (rocksleak run --app): examples/apps/leaky-setter.yaml instrumented vs a
## bare TopologyTestDriver loop of the same operations, alternately, 3 rounds of 300 task lives (issue 41's goal:
## lifecycles/s at least 0.9x bare; about 2 minutes). BENCH_APP names another app file.
BENCH_APP ?= examples/apps/leaky-setter.yaml
.PHONY: bench-app
bench-app: KAFKA_VERSIONS := 4.3.1
bench-app: jvm build
	$(GO) run ./scripts/benchjvm -bin $(BIN) -app $(BENCH_APP) -lifecycles 300 -rounds 3 -goal 0.90 $(BENCH_JVM_FLAGS)
